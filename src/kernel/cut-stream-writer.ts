/**
 * For a live cell's run, watched through a message hook: keeps the rest of
 * a stream that went past the cap away from the cell's output area (which
 * would keep all of it, and re-process all of it on every message), and
 * writes the capped text (head, a line on what was dropped, tail) into the
 * cell instead, at most every CUT_FLUSH_MS and before any other message
 * reaches the output area.
 */
import { KernelMessage } from '@jupyterlab/services';
import type { CellOutput } from '../agent/ports';
import type { OutputAccumulator } from './output-accumulator';

/** How often the capped text of a flooding stream is written into the cell. */
const CUT_FLUSH_MS = 250;

/** Writes a capped stream into a live cell, in place of its last output. */
export class CutStreamWriter {
  constructor(private readonly _write?: (output: CellOutput) => void) {}

  /**
   * Called with each message after `accumulator` took it: true to let it
   * through to the output area, false to keep it out (it is in the capped
   * text, written soon). The first message of an output always goes
   * through, so the output area has the output to replace (a single
   * message may already be past the cap).
   */
  pass(
    msg: KernelMessage.IIOPubMessage,
    accumulator: OutputAccumulator
  ): boolean {
    const cut = accumulator.cutStream;
    if (cut && this._write && KernelMessage.isStreamMsg(msg)) {
      this._pending = cut;
      this._timer ??= setTimeout(() => this.flush(), CUT_FLUSH_MS);
      return !accumulator.lastMerged;
    }
    this.flush();
    return true;
  }

  /** Write the latest capped text now, if any is pending. */
  flush(): void {
    if (this._timer) {
      clearTimeout(this._timer);
      this._timer = null;
    }
    const pending = this._pending;
    this._pending = null;
    if (pending) {
      this._write?.(pending);
    }
  }

  private _pending: CellOutput | null = null;
  private _timer: ReturnType<typeof setTimeout> | null = null;
}
