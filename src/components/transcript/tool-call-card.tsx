/**
 * One tool call: what the agent did (in words), its state, and a preview
 * of the result. A call waiting for the user's approval says so (its code
 * is on the approval card, shown once); a rejected one says, neutrally,
 * what the user said, with the model's text behind a disclosure. It reads
 * what the chat's record says of the call (its title, code, kind, cell):
 * no tool name, no arguments parsed, no tool definition.
 */
import React, { useState } from 'react';
import type { TranslationBundle } from '@jupyterlab/translation';
import type { TranscriptItem } from '../../agent/session';
import type { ShowCellResult } from '../config/sidebar-config';
import { ShowCellButton } from './show-cell-button';
import { ToolImages } from './tool-images';
import { holdsPrintedTable } from '../markdown/printed-tables';
import { useTrans } from '../common/trans';

type ToolItem = Extract<TranscriptItem, { kind: 'tool' }>;

/** Props of `ToolCallCard`. */
export interface IToolCallCardProps {
  item: ToolItem;
  /** The call waits for the user's approval (the approval card shows it). */
  awaiting?: boolean;
  onShowCell?: (cellId: string) => ShowCellResult | void;
  /** Undo the file this call wrote (write_file); absent: no Undo offered. */
  onUndoFile?: (callId: string) => void;
}

/** The card's state: "done · 1.2 s", "awaiting your approval", "still running (30 s)"… */
function state(
  item: ToolItem,
  awaiting: boolean,
  trans: TranslationBundle
): string {
  const seconds =
    item.durationMs !== undefined
      ? ` · ${trans.__('%1 s', (item.durationMs / 1000).toFixed(1))}`
      : '';
  switch (item.status) {
    case 'running':
      return awaiting
        ? trans.__('awaiting your approval')
        : trans.__('running…');
    case 'interrupted':
      return trans.__('interrupted (page reloaded)');
    case 'rejected':
      return trans.__('not run');
    case 'error':
      return trans.__('error') + seconds;
    case 'done':
      // A soft timeout returned: the code goes on in the kernel.
      return item.stillRunning
        ? trans.__(
            'still running (%1 s)',
            Math.round((item.durationMs ?? 0) / 1000)
          )
        : trans.__('done') + seconds;
  }
}

/** A collapsible card for one tool call. */
export function ToolCallCard({
  item,
  awaiting = false,
  onShowCell,
  onUndoFile
}: IToolCallCardProps): JSX.Element {
  const trans = useTrans();
  const [open, setOpen] = useState(item.status === 'error');
  // While it waits, the approval card shows the code: once per step.
  const code = item.code !== undefined && !awaiting ? item.code : null;
  const rejected = item.status === 'rejected';
  const preview =
    item.output && !rejected
      ? item.output.slice(0, 1200) + (item.output.length > 1200 ? '…' : '')
      : '';
  return (
    <div
      className={`jp-AgentSidebar-tool jp-AgentSidebar-tool-${item.status}`}
      data-tool={item.name}
      data-status={awaiting ? 'awaiting' : item.status}
    >
      <button
        className="jp-AgentSidebar-toolHeader"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
      >
        <span className="jp-AgentSidebar-toolTitle">
          {/* The tool's title in words (a msgid for translators); a chat saved before titles: its name. */}
          {item.title ? trans.__(item.title) : item.name}
        </span>
        <span className="jp-AgentSidebar-toolState">
          {state(item, awaiting, trans)}
        </span>
      </button>
      {rejected && (
        <div className="jp-AgentSidebar-rejected">
          {item.reason
            ? trans.__('Rejected by you: %1', item.reason)
            : trans.__('Rejected by you.')}
          {item.output && (
            <details className="jp-AgentSidebar-told">
              <summary>{trans.__('What the agent was told')}</summary>
              <pre className="jp-AgentSidebar-toolOutput">{item.output}</pre>
            </details>
          )}
        </div>
      )}
      {code !== null && <pre className="jp-AgentSidebar-toolCode">{code}</pre>}
      {open &&
        !code &&
        !awaiting &&
        item.arguments &&
        item.arguments !== '{}' && (
          <pre className="jp-AgentSidebar-toolCode">{item.arguments}</pre>
        )}
      {(item.images?.length ?? 0) + (item.moreImages ?? 0) > 0 && (
        <ToolImages images={item.images ?? []} more={item.moreImages ?? 0} />
      )}
      {/* A call that ran code shows what it printed without being opened. */}
      {preview && (open || item.toolKind === 'run') && (
        <pre
          className={
            holdsPrintedTable(preview)
              ? 'jp-AgentSidebar-toolOutput jp-mod-table'
              : 'jp-AgentSidebar-toolOutput'
          }
        >
          {preview}
        </pre>
      )}
      {item.cellId && onShowCell && (
        <ShowCellButton cellId={item.cellId} onShowCell={onShowCell} />
      )}
      {item.file?.undone && (
        <span className="jp-AgentSidebar-toolState">
          {item.file.created ? trans.__('removed') : trans.__('restored')}
        </span>
      )}
      {onUndoFile && (
        <button
          className="jp-AgentSidebar-link jp-AgentSidebar-fileUndo"
          title={
            item.file?.created
              ? trans.__('Remove the file the agent created')
              : trans.__('Put back the file as it was before')
          }
          onClick={() => onUndoFile(item.id)}
        >
          {trans.__('Undo')}
        </button>
      )}
    </div>
  );
}
