/**
 * The text of one stream output as a notebook shows it: `\r` goes back to
 * the start of the line (what follows overwrites it, as progress bars
 * expect), `\b` deletes the character before the cursor, `\n` ends the
 * line. These are JupyterLab's own rules (OutputAreaModel's processText),
 * so the agent reads what the cell shows. The text is capped
 * (./stream-cap.ts), so a flood keeps its head and tail only.
 *
 * Only the last line can still change (the cursor never leaves it), so it
 * is kept apart from the finished lines, which go into the capped stream:
 * a `\r` costs the length of the last line, never of the whole text.
 */
import { CappedStream } from './stream-cap';

/** A last line longer than this is committed as it is (no `\r` reaches back past it). */
const MAX_OPEN_LINE_CHARS = 64 * 1024;

/** Matches the characters that move the cursor. */
const CONTROL = /[\n\r\b]/g;

/** One stream output's text (stdout or stderr of one execution). */
export class StreamOutput {
  constructor(text = '') {
    this.append(text);
  }

  /** Add text at the cursor, applying `\r`, `\b` and `\n`. */
  append(text: string): void {
    const atEnd = this._cursor === this._line.length;
    if (atEnd && !text.includes('\r') && !text.includes('\b')) {
      // The common case (no cursor moves): whole lines go straight to the
      // capped stream, in one piece.
      const end = text.lastIndexOf('\n');
      if (end < 0) {
        this._line += text;
      } else {
        this._done.append(this._line + text.slice(0, end + 1));
        this._line = text.slice(end + 1);
      }
      this._cursor = this._line.length;
    } else {
      let start = 0;
      CONTROL.lastIndex = 0;
      for (let match = CONTROL.exec(text); match; match = CONTROL.exec(text)) {
        this._write(text.slice(start, match.index));
        start = match.index + 1;
        this._control(match[0]);
      }
      this._write(text.slice(start));
    }
    if (
      this._line.length > MAX_OPEN_LINE_CHARS &&
      this._cursor === this._line.length
    ) {
      this._done.append(this._line);
      this._line = '';
      this._cursor = 0;
    }
  }

  /** The text as shown (capped). */
  get text(): string {
    return this._line ? this._done.text + this._line : this._done.text;
  }

  /** True once the text went past the cap and lost its middle. */
  get cut(): boolean {
    return this._done.cut;
  }

  /** Overwrite the last line from the cursor on. */
  private _write(segment: string): void {
    if (!segment) {
      return;
    }
    const at = this._cursor;
    this._line =
      this._line.slice(0, at) + segment + this._line.slice(at + segment.length);
    this._cursor = at + segment.length;
  }

  private _control(char: string): void {
    if (char === '\n') {
      this._done.append(this._line + '\n');
      this._line = '';
      this._cursor = 0;
    } else if (char === '\r') {
      this._cursor = 0;
    } else if (this._cursor > 0) {
      // JupyterLab drops the character before the cursor and the one under it.
      const at = this._cursor;
      this._line = this._line.slice(0, at - 1) + this._line.slice(at + 1);
      this._cursor = at - 1;
    }
  }

  private readonly _done = new CappedStream();
  /** The last line, not ended by `\n` yet. */
  private _line = '';
  /** Where the next character goes in `_line`. */
  private _cursor = 0;
}
