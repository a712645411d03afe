/**
 * Turns the iopub messages of one execution into cell outputs, the way a
 * notebook's output area does (JupyterLab's OutputArea and
 * OutputAreaModel): consecutive stream text of the same name is merged,
 * with `\r` and `\b` applied (./stream-output.ts), `clear_output(wait=True)`
 * clears just before the next output, and `update_display_data` replaces
 * the outputs with the same display id.
 *
 * Outputs are treated as immutable values (a merge replaces the last
 * output rather than mutating it), so snapshots handed out earlier never
 * change under the reader. A stream that grows past a few MB keeps its head
 * and tail only (./stream-cap.ts), so a flood of output cannot exhaust
 * memory.
 */
import { KernelMessage } from '@jupyterlab/services';
import type { CellOutput } from '../agent/ports';
import { StreamOutput } from './stream-output';

/** The outputs of one execution, built from its iopub messages. */
export class OutputAccumulator {
  /** The outputs so far. */
  get outputs(): CellOutput[] {
    return this._outputs;
  }

  /** The execution count the kernel announced, if any. */
  executionCount: number | null = null;

  /**
   * The last output, when it is a stream that went past the cap: its text
   * is then head + tail, which a notebook's own output area would not do.
   */
  get cutStream(): CellOutput | null {
    return this._stream?.cut ? this._outputs[this._outputs.length - 1] : null;
  }

  /** True when the last message `add` took merged into the last output (a stream). */
  get lastMerged(): boolean {
    return this._lastMerged;
  }

  /** Handle one iopub message; returns whether the outputs changed. */
  add(msg: KernelMessage.IIOPubMessage): boolean {
    this._lastMerged = false;
    if (KernelMessage.isExecuteInputMsg(msg)) {
      this.executionCount = msg.content.execution_count;
      return false;
    }
    if (KernelMessage.isClearOutputMsg(msg)) {
      if (msg.content.wait) {
        this._clearPending = true;
      } else {
        this._clear();
      }
      return !msg.content.wait;
    }
    if (KernelMessage.isUpdateDisplayDataMsg(msg)) {
      return this._update(msg);
    }
    const output = Private.toOutput(msg);
    if (!output) {
      return false;
    }
    if (this._clearPending) {
      this._clear();
    }
    if (KernelMessage.isExecuteResultMsg(msg)) {
      this.executionCount = msg.content.execution_count;
    }
    const last = this._outputs[this._outputs.length - 1];
    if (
      output.type === 'stream' &&
      last?.type === 'stream' &&
      last.name === output.name &&
      this._stream
    ) {
      this._stream.append(output.text);
      this._lastMerged = true;
      this._outputs[this._outputs.length - 1] = {
        ...last,
        text: this._stream.text
      };
    } else {
      if (output.type === 'stream') {
        this._stream = new StreamOutput(output.text);
        output.text = this._stream.text;
      } else {
        this._stream = null;
      }
      this._outputs.push(output);
      const displayId = Private.displayId(msg);
      if (displayId) {
        this._displays.set(this._outputs.length - 1, displayId);
      }
    }
    return true;
  }

  private _update(msg: KernelMessage.IUpdateDisplayDataMsg): boolean {
    const displayId = Private.displayId(msg);
    let changed = false;
    for (const [index, id] of this._displays) {
      const old = this._outputs[index];
      if (id === displayId && old && old.type !== 'stream') {
        if (old.type !== 'error') {
          this._outputs[index] = {
            ...old,
            data: { ...msg.content.data },
            metadata: { ...msg.content.metadata }
          };
          changed = true;
        }
      }
    }
    return changed;
  }

  private _clear(): void {
    this._outputs = [];
    this._stream = null;
    this._displays.clear();
    this._clearPending = false;
  }

  private _outputs: CellOutput[] = [];
  /** The text of the last output, when it is a stream (it may grow). */
  private _stream: StreamOutput | null = null;
  /** Output index → display id, for update_display_data. */
  private _displays = new Map<number, string>();
  private _clearPending = false;
  private _lastMerged = false;
}

namespace Private {
  /** The output an iopub message adds, or null for other messages. */
  export function toOutput(
    msg: KernelMessage.IIOPubMessage
  ): CellOutput | null {
    if (KernelMessage.isStreamMsg(msg)) {
      return {
        type: 'stream',
        name: msg.content.name === 'stderr' ? 'stderr' : 'stdout',
        text: msg.content.text
      };
    }
    if (
      KernelMessage.isExecuteResultMsg(msg) ||
      KernelMessage.isDisplayDataMsg(msg)
    ) {
      return {
        type: KernelMessage.isExecuteResultMsg(msg)
          ? 'execute_result'
          : 'display_data',
        data: { ...msg.content.data },
        metadata: { ...msg.content.metadata }
      };
    }
    if (KernelMessage.isErrorMsg(msg)) {
      return {
        type: 'error',
        ename: msg.content.ename,
        evalue: msg.content.evalue,
        traceback: [...msg.content.traceback]
      };
    }
    return null;
  }

  /** The transient display id of a display message, if any. */
  export function displayId(msg: KernelMessage.IIOPubMessage): string | null {
    const content = msg.content as { transient?: { display_id?: unknown } };
    const id = content.transient?.display_id;
    return typeof id === 'string' ? id : null;
  }
}
