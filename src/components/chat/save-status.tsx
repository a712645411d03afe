/**
 * "Chat not saved — Retry": shown while the chat on screen (or the one it
 * replaced) could not be saved on the server, until a save succeeds.
 */
import React, { useSyncExternalStore } from 'react';
import type { IChatHistory } from '../config/sidebar-config';
import { useTrans } from '../common/trans';

/** The line, or nothing when every chat is saved. */
export function SaveStatus(props: {
  history: IChatHistory;
}): JSX.Element | null {
  const trans = useTrans();
  const { saveError } = props.history;
  const error = useSyncExternalStore(
    saveError.subscribe,
    saveError.getSnapshot
  );
  if (!error) {
    return null;
  }
  return (
    <div className="jp-AgentSidebar-saveError" role="alert" title={error}>
      {trans.__('Chat not saved')} —{' '}
      <button
        className="jp-AgentSidebar-link"
        onClick={() => props.history.retrySave()}
      >
        {trans.__('Retry')}
      </button>
    </div>
  );
}
