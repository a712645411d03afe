/**
 * One stream output (stdout or stderr of an execution) with bounded memory.
 *
 * A cell may print without end (50 MB of logs, a loop gone wrong). Keeping
 * it all would hold it in memory, write it into the notebook and make every
 * read of the notebook slow, while the agent only ever reads a head and a
 * tail of it (src/agent/context/observations.ts). So past `MAX_STREAM_CHARS` the text
 * keeps its first and last part with a line saying how much was dropped.
 * Appending is amortized O(1) per character: the tail may grow to twice its
 * size before it is trimmed.
 */

/** Characters kept of the start of a long stream. */
export const STREAM_HEAD_CHARS = 512 * 1024;
/** Characters kept of the end of a long stream. */
export const STREAM_TAIL_CHARS = 512 * 1024;
/** A stream longer than this is cut to its head and tail. */
export const MAX_STREAM_CHARS = STREAM_HEAD_CHARS + STREAM_TAIL_CHARS;

/** The text of one stream output, capped. */
export class CappedStream {
  constructor(text = '') {
    this.append(text);
  }

  /** Add text at the end. */
  append(text: string): void {
    if (!this._cut && this._head.length + text.length <= MAX_STREAM_CHARS) {
      this._head += text;
      return;
    }
    if (!this._cut) {
      // First time over the limit: split what we have into head and tail.
      const all = this._head + text;
      let end = STREAM_HEAD_CHARS;
      if (isHighSurrogate(all.charCodeAt(end - 1))) {
        end -= 1;
      }
      this._head = all.slice(0, end);
      this._tail = all.slice(end);
      this._cut = true;
    } else {
      this._tail += text;
    }
    if (this._tail.length > 2 * STREAM_TAIL_CHARS) {
      let start = this._tail.length - STREAM_TAIL_CHARS;
      if (isLowSurrogate(this._tail.charCodeAt(start))) {
        start += 1;
      }
      this._dropped += start;
      this._tail = this._tail.slice(start);
    }
  }

  /** True once the text went past MAX_STREAM_CHARS (it is kept as head + tail from then on). */
  get cut(): boolean {
    return this._cut;
  }

  /** The text as kept: all of it, or head + a line on what was dropped + tail. */
  get text(): string {
    if (!this._dropped) {
      return this._head + this._tail;
    }
    const kb = Math.round(STREAM_HEAD_CHARS / 1024);
    return (
      `${this._head}\n… [${this._dropped} characters of output dropped by ` +
      `Notebook Agent, which keeps the first and last ${kb}K characters of a ` +
      `stream] …\n${this._tail}`
    );
  }

  private _head = '';
  private _tail = '';
  private _cut = false;
  private _dropped = 0;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
