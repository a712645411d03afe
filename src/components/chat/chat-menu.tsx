/**
 * The header's chat controls: reopen an earlier chat of this notebook
 * (History) and download the chat as markdown (Export).
 */
import React, { useRef, useState } from 'react';
import { chatToMarkdown } from '../../agent/chat-record';
import type { ChatSession } from '../../agent/session/chat-session';
import type { IChatHistory, IChatSummary } from '../config/sidebar-config';
import { useTrans } from '../common/trans';
import { useDismiss } from '../common/use-dismiss';

/** Props of `ChatMenu`. */
export interface IChatMenuProps {
  session: ChatSession;
  history: IChatHistory | null;
  disabled: boolean;
  /** Any change closes the History list (a new chat, the sidebar hidden). */
  closeKey?: unknown;
}

/** History and Export. */
export function ChatMenu(props: IChatMenuProps): JSX.Element {
  const trans = useTrans();
  const [chats, setChats] = useState<IChatSummary[] | null>(null);
  const button = useRef<HTMLButtonElement>(null);
  const list = useRef<HTMLUListElement>(null);
  // A list still loading when it was closed stays closed.
  const opening = useRef(0);
  const close = () => {
    opening.current += 1;
    setChats(null);
  };
  useDismiss({
    open: chats !== null,
    close,
    anchor: button,
    popover: list,
    closeKey: props.closeKey
  });
  const toggle = async () => {
    if (chats) {
      close();
      return;
    }
    const ticket = ++opening.current;
    const listed = (await props.history?.list()) ?? [];
    if (ticket === opening.current) {
      setChats(listed);
    }
  };
  return (
    <>
      {props.history && (
        <button
          ref={button}
          className="jp-AgentSidebar-link"
          aria-expanded={chats !== null}
          disabled={props.disabled}
          onClick={() => void toggle()}
        >
          {trans.__('History')}
        </button>
      )}
      <button
        className="jp-AgentSidebar-link"
        disabled={!props.session.getSnapshot().items.length}
        onClick={() => exportChat(props.session)}
      >
        {trans.__('Export')}
      </button>
      {chats && (
        <ul
          ref={list}
          className="jp-AgentSidebar-history"
          aria-label={trans.__('Earlier chats')}
        >
          {chats.length === 0 && (
            <li>{trans.__('No saved chats for this notebook yet.')}</li>
          )}
          {chats.map(chat => (
            <li key={chat.id}>
              <button
                className="jp-AgentSidebar-link"
                aria-current={chat.id === props.session.chatId}
                onClick={() => {
                  close();
                  button.current?.focus();
                  void props.history?.open(chat.id);
                }}
              >
                {chat.title || trans.__('Untitled chat')}
              </button>{' '}
              <span className="jp-AgentSidebar-historyDate">
                {new Date(chat.updated).toLocaleString()}
              </span>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

/** Download the chat as a markdown file. */
function exportChat(session: ChatSession): void {
  const record = session.record();
  const blob = new Blob([chatToMarkdown(record)], { type: 'text/markdown' });
  const link = document.createElement('a');
  link.href = URL.createObjectURL(blob);
  link.download = `${record.title.replace(/[^\w.-]+/g, '_').slice(0, 60) || 'chat'}.md`;
  document.body.appendChild(link);
  link.click();
  link.remove();
  window.setTimeout(() => URL.revokeObjectURL(link.href), 1000);
}
