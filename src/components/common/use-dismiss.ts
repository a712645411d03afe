/**
 * How a popover or menu of the sidebar closes: Escape (the focus goes back
 * to the button that opened it), a click outside it, and whenever
 * `closeKey` changes (a new chat, the sidebar hidden).
 */
import { useEffect, useRef, type RefObject } from 'react';

/** What `useDismiss` closes and watches. */
export interface IDismissOptions {
  open: boolean;
  /** Close it. */
  close: () => void;
  /** The button that opens it (the focus goes back there on Escape). */
  anchor: RefObject<HTMLElement>;
  /** The popover itself. */
  popover: RefObject<HTMLElement>;
  /** Any change closes it (e.g. the chat's id, how often the sidebar was hidden). */
  closeKey: unknown;
}

/** Close the popover on Escape, an outside click, or a change of `closeKey`. */
export function useDismiss(options: IDismissOptions): void {
  const { open, anchor, popover, closeKey } = options;
  const close = useRef(options.close);
  close.current = options.close;
  const firstKey = useRef(closeKey);
  useEffect(() => {
    if (firstKey.current !== closeKey) {
      firstKey.current = closeKey;
      close.current();
    }
  }, [closeKey]);
  useEffect(() => {
    if (!open) {
      return;
    }
    const inside = (target: EventTarget | null) =>
      target instanceof Node &&
      (!!anchor.current?.contains(target) ||
        !!popover.current?.contains(target));
    const onKeyDown = (event: KeyboardEvent) => {
      const doc = anchor.current?.ownerDocument;
      if (
        event.key === 'Escape' &&
        (inside(event.target) || event.target === doc?.body)
      ) {
        event.preventDefault();
        event.stopPropagation();
        close.current();
        anchor.current?.focus();
      }
    };
    // On the click, not the pointerdown: closing shifts the layout, and a
    // close on pointerdown moved what was clicked (the approval card's Run
    // below an open MCP panel) away before the click landed, which was lost.
    const onClick = (event: MouseEvent) => {
      if (!inside(event.target)) {
        close.current();
      }
    };
    const doc = anchor.current?.ownerDocument ?? document;
    doc.addEventListener('keydown', onKeyDown, true);
    doc.addEventListener('click', onClick, true);
    return () => {
      doc.removeEventListener('keydown', onKeyDown, true);
      doc.removeEventListener('click', onClick, true);
    };
  }, [open, anchor, popover]);
}
