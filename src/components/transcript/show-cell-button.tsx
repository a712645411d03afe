/**
 * "Show cell": brings a cell the agent touched into view; when the cell is
 * gone it says so in place ("the cell was deleted", "its notebook is not
 * open") instead of doing nothing.
 */
import React, { useState } from 'react';
import type { ShowCellResult } from '../config/sidebar-config';
import { useTrans } from '../common/trans';

/** Props of `ShowCellButton`. */
export interface IShowCellButtonProps {
  cellId: string;
  onShowCell: (cellId: string) => ShowCellResult | void;
  /** The button's text ("Show cell" when omitted). */
  label?: string;
}

/** A link-style button that shows a cell, or says why it cannot. */
export function ShowCellButton(props: IShowCellButtonProps): JSX.Element {
  const trans = useTrans();
  const [missing, setMissing] = useState<'deleted' | 'closed' | null>(null);
  return (
    <span className="jp-AgentSidebar-showCell">
      <button
        className="jp-AgentSidebar-link"
        onClick={() => {
          const found = props.onShowCell(props.cellId);
          setMissing(found === 'deleted' || found === 'closed' ? found : null);
        }}
      >
        {props.label ?? trans.__('Show cell')}
      </button>
      {missing && (
        <span className="jp-AgentSidebar-showCellMissing" role="status">
          {missing === 'deleted'
            ? trans.__('the cell was deleted')
            : trans.__('its notebook is not open')}
        </span>
      )}
    </span>
  );
}
