/**
 * Where a completion's text ends: the streamed text is cut at the first
 * stop string (which is not shown), and an end that may be the start of
 * one is held back until the next token tells.
 */

/** The replacement character a partly decoded UTF-8 character shows as. */
const INCOMPLETE = '\uFFFD';

/** Turns the text decoded so far into the part that may be shown now. */
export class StopStringCutter {
  private readonly _stops: string[];
  private _text = '';
  private _emitted = 0;
  private _stopped = false;

  constructor(stops: readonly string[]) {
    this._stops = stops.filter(stop => stop.length > 0);
  }

  /** Whether a stop string was reached (the text ends before it). */
  get stopped(): boolean {
    return this._stopped;
  }

  /**
   * The whole text generated so far (decoded again after each token, so a
   * stop string split across tokens is found); returns what is new and safe
   * to show.
   */
  update(text: string): string {
    if (this._stopped) {
      return '';
    }
    this._text = text;
    const at = this._firstStop(text);
    if (at >= 0) {
      this._stopped = true;
      return this._emit(at);
    }
    return this._emit(trimIncomplete(text, text.length - this._heldBack(text)));
  }

  /** What was held back, once the generation ended without a stop string. */
  finish(): string {
    return this._stopped
      ? ''
      : this._emit(trimIncomplete(this._text, this._text.length));
  }

  private _emit(end: number): string {
    if (end <= this._emitted) {
      return '';
    }
    const text = this._text.slice(this._emitted, end);
    this._emitted = end;
    return text;
  }

  /** Where the first stop string begins; -1 when none is there. */
  private _firstStop(text: string): number {
    let first = -1;
    for (const stop of this._stops) {
      const at = text.indexOf(stop);
      if (at >= 0 && (first < 0 || at < first)) {
        first = at;
      }
    }
    return first;
  }

  /** The length of the longest end of `text` that begins a stop string. */
  private _heldBack(text: string): number {
    let longest = 0;
    for (const stop of this._stops) {
      for (let k = Math.min(stop.length - 1, text.length); k > longest; k--) {
        if (text.endsWith(stop.slice(0, k))) {
          longest = k;
          break;
        }
      }
    }
    return longest;
  }
}

/** `end`, moved back over a character whose last bytes have not come yet. */
function trimIncomplete(text: string, end: number): number {
  while (end > 0 && text[end - 1] === INCOMPLETE) {
    end--;
  }
  return end;
}
