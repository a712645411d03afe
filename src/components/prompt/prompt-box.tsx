/**
 * The prompt: Enter sends, Shift+Enter starts a new line; Stop while running.
 * Typing `@` offers the notebook's cells and variables (mention-list.tsx):
 * a cell becomes a chip in the tray, a variable an `@name` in the text.
 */
import React, {
  useEffect,
  useId,
  useLayoutEffect,
  useRef,
  useState
} from 'react';
import { MentionList, mentionOptionId } from './mention-list';
import {
  applyMention,
  type ICellChoice,
  type IMention,
  type IMentionSource,
  type MentionOption
} from './mentions';
import { useTrans } from '../common/trans';
import { useMentionPicker } from './use-mention-picker';

/** Props of `PromptBox`. */
export interface IPromptBoxProps {
  running: boolean;
  /** Returns true when the prompt was accepted (then the box is cleared). */
  onSend: (prompt: string) => boolean;
  onStop: () => void;
  inputRef?: React.RefObject<HTMLTextAreaElement>;
  /** What `@` offers; without it, `@` is plain text. */
  mentions?: IMentionSource;
  /** Attach a cell picked with `@` (as "Add Selected Cells" does). */
  onAttachCell?: (cell: ICellChoice) => void;
  /** Any change closes the `@` picker (a new chat, the sidebar hidden). */
  closeKey?: unknown;
  /**
   * Called once, when the prompt is first focused or typed in: time to get
   * the first reply ready. Focus comes a moment before the first key, and
   * the warm-up's loads (MathJax among them) take about a second: begun at
   * the first key of a short prompt typed fast, they still ran while the
   * reply streamed (bench/ui-streaming.ts saw a 69 ms task then).
   */
  onFirstUse?: () => void;
}

/** The prompt box with its Send and Stop buttons. */
export function PromptBox({
  running,
  onSend,
  onStop,
  inputRef,
  mentions,
  onAttachCell,
  closeKey,
  onFirstUse
}: IPromptBoxProps): JSX.Element {
  const trans = useTrans();
  const [text, setText] = useState('');
  const [caret, setCaret] = useState(0);
  const ownRef = useRef<HTMLTextAreaElement>(null);
  const input = inputRef ?? ownRef;
  // Where the caret goes after a pick changed the text.
  const pendingCaret = useRef<number | null>(null);
  const listId = useId();
  const used = useRef(false);
  const firstUse = () => {
    if (!used.current) {
      used.current = true;
      onFirstUse?.();
    }
  };

  const pick = (option: MentionOption, mention: IMention) => {
    const next = applyMention(text, mention, caret, option);
    if (option.kind === 'cell') {
      onAttachCell?.(option.cell);
    }
    pendingCaret.current = next.caret;
    setText(next.text);
    setCaret(next.caret);
  };
  const picker = useMentionPicker(text, caret, mentions, pick, trans);
  const { dismiss } = picker;
  const firstKey = useRef(closeKey);
  useEffect(() => {
    if (firstKey.current !== closeKey) {
      firstKey.current = closeKey;
      dismiss();
    }
  }, [closeKey]);
  useLayoutEffect(() => {
    if (pendingCaret.current !== null && input.current) {
      input.current.setSelectionRange(
        pendingCaret.current,
        pendingCaret.current
      );
      pendingCaret.current = null;
    }
  }, [text]);

  const send = () => {
    if (!running && text.trim() && onSend(text)) {
      setText('');
      setCaret(0);
    }
  };
  const open = picker.mention !== null;
  return (
    <div className="jp-AgentSidebar-prompt">
      {open && (
        <MentionList
          id={listId}
          options={picker.options}
          active={picker.active}
          onHover={picker.setActive}
          onPick={option => pick(option, picker.mention!)}
        />
      )}
      <textarea
        ref={input}
        className="jp-AgentSidebar-input"
        aria-label={trans.__('Ask Notebook Agent')}
        aria-autocomplete={mentions ? 'list' : undefined}
        aria-controls={open ? listId : undefined}
        aria-activedescendant={
          open ? mentionOptionId(listId, picker.active) : undefined
        }
        // Short enough for a narrow sidebar; the keys are in the tooltip.
        placeholder={trans.__('Ask to analyse, plot, fix… (@ for a cell)')}
        title={trans.__(
          'Enter sends, Shift+Enter adds a line; @ mentions a cell or variable'
        )}
        rows={3}
        value={text}
        onFocus={firstUse}
        onChange={event => {
          firstUse();
          setText(event.target.value);
          setCaret(event.target.selectionStart ?? event.target.value.length);
        }}
        onSelect={event => setCaret(event.currentTarget.selectionStart ?? 0)}
        // A click elsewhere closes the picker (its options keep the focus here).
        onBlur={() => picker.dismiss()}
        onKeyDown={event => {
          if (picker.onKeyDown(event)) {
            return;
          }
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
            {trans.__('Stop')}
          </button>
        ) : (
          <button
            className="jp-mod-styled jp-mod-accept"
            disabled={!text.trim()}
            onClick={send}
          >
            {trans.__('Send')}
          </button>
        )}
      </div>
    </div>
  );
}
