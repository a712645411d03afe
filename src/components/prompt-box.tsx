/**
 * The prompt: Enter sends, Shift+Enter starts a new line; Stop while running.
 */
import React, { useState } from 'react';

/** Props of `PromptBox`. */
export interface IPromptBoxProps {
  running: boolean;
  /** Returns true when the prompt was accepted (then the box is cleared). */
  onSend: (prompt: string) => boolean;
  onStop: () => void;
  inputRef?: React.RefObject<HTMLTextAreaElement>;
}

/** The prompt box with its Send and Stop buttons. */
export function PromptBox({
  running,
  onSend,
  onStop,
  inputRef
}: IPromptBoxProps): JSX.Element {
  const [text, setText] = useState('');
  const send = () => {
    if (!running && text.trim() && onSend(text)) {
      setText('');
    }
  };
  return (
    <div className="jp-AgentSidebar-prompt">
      <textarea
        ref={inputRef}
        className="jp-AgentSidebar-input"
        aria-label="Ask Notebook Agent"
        placeholder="Ask Notebook Agent to analyse, plot, fix… (Enter to send, Shift+Enter for a new line)"
        rows={3}
        value={text}
        onChange={event => setText(event.target.value)}
        onKeyDown={event => {
          if (
            event.key === 'Enter' &&
            !event.shiftKey &&
            !event.nativeEvent.isComposing
          ) {
            event.preventDefault();
            send();
          } else if (event.key === 'Escape' && running) {
            event.preventDefault();
            onStop();
          }
        }}
      />
      <div className="jp-AgentSidebar-actions">
        {running ? (
          <button className="jp-mod-styled jp-mod-warn" onClick={onStop}>
            Stop
          </button>
        ) : (
          <button
            className="jp-mod-styled jp-mod-accept"
            disabled={!text.trim()}
            onClick={send}
          >
            Send
          </button>
        )}
      </div>
    </div>
  );
}
