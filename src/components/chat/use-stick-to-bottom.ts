/**
 * The transcript stays at its end while the reader is there: content that
 * grows after a render (an answer's Markdown is rendered asynchronously by
 * JupyterLab's rendermime, a plot's image loads later) scrolls it further.
 * A reader who scrolled up is left where they are until the next item.
 *
 * Seen in Chromium (the walk, 2026-12-05): the run's final answer was half
 * hidden under the prompt's footer seconds after the run ended, because the
 * scroll ran on the new item, before its Markdown had a height.
 */
import { useCallback, useRef } from 'react';

/** Pixels from the end that still count as "at the end". */
const SLACK = 24;

/**
 * A ref callback for the scrolling element: while it is mounted, it is kept
 * at its end when it grows and the reader was there.
 */
export function useStickToBottom(): (node: HTMLElement | null) => void {
  const detach = useRef<(() => void) | null>(null);
  return useCallback((node: HTMLElement | null) => {
    detach.current?.();
    detach.current = null;
    if (!node) {
      return;
    }
    let pinned = true;
    const atEnd = () =>
      node.scrollHeight - node.scrollTop - node.clientHeight <= SLACK;
    // Where the reader is, after each scroll (theirs or ours).
    const onScroll = () => {
      pinned = atEnd();
    };
    const follow = () => {
      if (pinned && !atEnd()) {
        node.scrollTop = node.scrollHeight;
      }
    };
    node.addEventListener('scroll', onScroll, { passive: true });
    // Images load after they are in the DOM: `load` does not bubble, so capture it.
    node.addEventListener('load', follow, true);
    const mutations = new MutationObserver(follow);
    mutations.observe(node, {
      childList: true,
      subtree: true,
      characterData: true
    });
    detach.current = () => {
      node.removeEventListener('scroll', onScroll);
      node.removeEventListener('load', follow, true);
      mutations.disconnect();
    };
  }, []);
}
