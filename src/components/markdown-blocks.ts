/**
 * Splits streamed markdown into blocks (at blank lines outside fenced code),
 * so the sidebar renders each finished block once and re-renders only the
 * growing last one: streaming a long reply costs O(length), not O(length²).
 */

/** The blocks of `text`, in order; joining them with blank lines gives it back. */
export function markdownBlocks(text: string): string[] {
  const blocks: string[] = [];
  let current: string[] = [];
  let fence: string | null = null;
  for (const line of text.split('\n')) {
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker) {
      if (fence === null) {
        fence = marker;
      } else if (marker[0] === fence[0] && marker.length >= fence.length) {
        fence = null;
      }
    }
    if (fence === null && line.trim() === '' && current.length) {
      blocks.push(current.join('\n'));
      current = [];
      continue;
    }
    if (fence === null && line.trim() === '') {
      continue;
    }
    current.push(line);
  }
  if (current.length) {
    blocks.push(current.join('\n'));
  }
  return blocks;
}
