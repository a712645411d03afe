/**
 * Splits streamed markdown into blocks (at blank lines outside fenced code),
 * so the sidebar renders each finished block once and re-renders only the
 * growing last one: streaming a long reply costs O(length), not O(length²).
 *
 * `BlockSplitter` also splits only what is new: when the text grew at its
 * end (a streaming reply), the finished blocks are kept as they were (the
 * same strings) and only the last block onwards is split again, so a
 * render of a 20,000-token reply does not re-split (and re-allocate) all of
 * it for every few characters that arrive.
 */

/** The blocks of a text from some offset on, and where a longer text's split may resume. */
interface ISplit {
  blocks: string[];
  /**
   * How many of `blocks` are finished: ended by a complete blank line
   * outside fenced code, so that no text added at the end can change them.
   */
  finished: number;
  /** Where splitting a longer text may resume: the first unfinished block, or the last line. */
  resume: number;
}

/** Split `text` from `from`, the start of a line outside fenced code. */
function splitFrom(text: string, from: number): ISplit {
  const blocks: string[] = [];
  let current: string[] = [];
  let fence: string | null = null;
  let finished = 0;
  let resume = from;
  for (let lineStart = from; lineStart <= text.length;) {
    let lineEnd = text.indexOf('\n', lineStart);
    if (lineEnd < 0) {
      lineEnd = text.length;
    }
    // The last line (no newline after it) may still grow.
    const complete = lineEnd < text.length;
    const line = text.slice(lineStart, lineEnd);
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker) {
      if (fence === null) {
        fence = marker;
      } else if (marker[0] === fence[0] && marker.length >= fence.length) {
        fence = null;
      }
    }
    if (fence === null && line.trim() === '') {
      if (current.length) {
        blocks.push(current.join('\n'));
        current = [];
      }
      if (complete) {
        finished = blocks.length;
        resume = lineEnd + 1;
      }
    } else {
      current.push(line);
    }
    lineStart = lineEnd + 1;
  }
  if (current.length) {
    blocks.push(current.join('\n'));
  }
  return { blocks, finished, resume };
}

/** The blocks of `text`, in order; joining them with blank lines gives it back. */
export function markdownBlocks(text: string): string[] {
  return splitFrom(text, 0).blocks;
}

/** `markdownBlocks` for a text that grows: each call splits only what is new. */
export class BlockSplitter {
  /** The blocks of `text`; the finished ones are the previous call's strings when `text` only grew. */
  split(text: string): string[] {
    if (text === this._text) {
      return this._blocks;
    }
    const grew =
      this._text !== '' &&
      text.length > this._text.length &&
      text.startsWith(this._text);
    if (!grew) {
      return this._keep(text, splitFrom(text, 0));
    }
    const kept = this._blocks.slice(0, this._split.finished);
    const tail = splitFrom(text, this._split.resume);
    return this._keep(text, {
      blocks: kept.concat(tail.blocks),
      finished: kept.length + tail.finished,
      resume: tail.resume
    });
  }

  private _keep(text: string, split: ISplit): string[] {
    this._text = text;
    this._split = split;
    this._blocks = split.blocks;
    return split.blocks;
  }

  private _text = '';
  private _blocks: string[] = [];
  private _split: ISplit = { blocks: [], finished: 0, resume: 0 };
}
