/**
 * In direct mode the browser calls the endpoint itself: say so, once, where
 * the user works, with what it implies for the key and how to avoid it.
 */
import React from 'react';
import { useTrans, withElements } from '../common/trans';

/** The warning shown above the chat in direct mode. */
export function DirectModeWarning(props: {
  baseUrl: string;
  hasKey: boolean;
}): JSX.Element {
  const trans = useTrans();
  const url = <code>{props.baseUrl || trans.__('(no base URL set)')}</code>;
  return (
    <div className="jp-AgentSidebar-directWarning" role="note">
      <strong>{trans.__('Direct mode:')}</strong>{' '}
      {props.hasKey
        ? withElements(
            trans,
            'this browser sends your notebook’s content and the API key from your settings straight to %1. The key is stored in your JupyterLab user settings, readable by anything running in this page.',
            url
          )
        : withElements(
            trans,
            'this browser sends your notebook’s content straight to %1.',
            url
          )}{' '}
      {trans.__(
        'Prefer proxy mode (the default): the Jupyter server keeps the key and calls the endpoint.'
      )}
    </div>
  );
}
