/**
 * In direct mode the browser calls the endpoint itself: say so, once, where
 * the user works, with what it implies for the key and how to avoid it.
 */
import React from 'react';

/** The warning shown above the chat in direct mode. */
export function DirectModeWarning(props: {
  baseUrl: string;
  hasKey: boolean;
}): JSX.Element {
  return (
    <div className="jp-AgentSidebar-directWarning" role="note">
      <strong>Direct mode:</strong> this browser sends your notebook’s content
      {props.hasKey ? ' and the API key from your settings' : ''} straight to{' '}
      <code>{props.baseUrl || '(no base URL set)'}</code>.
      {props.hasKey
        ? ' The key is stored in your JupyterLab user settings, readable by anything running in this page.'
        : ''}{' '}
      Prefer proxy mode (the default): the Jupyter server keeps the key and
      calls the endpoint.
    </div>
  );
}
