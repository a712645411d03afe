/**
 * What one execution produced and how it ended: its outputs (built from
 * its iopub messages), its status, and the facts a result reports (stdin
 * refused, the kernel's fate, a stop that did not take). The execution
 * (./watched-execution.ts) fills it in; watches read snapshots of it.
 */
import type { KernelMessage } from '@jupyterlab/services';
import type { IRunResult, RunStatus } from '../agent/ports';
import { OutputAccumulator } from './output-accumulator';

/** Why this side stopped an execution. */
export type StopReason = 'aborted' | 'timeout';

/** The record of one execution. */
export class RunRecord {
  constructor(
    /** The cell, or null for scratch code. */
    readonly cellId: string | null,
    /** Date.now() when the request was sent. */
    readonly started: number
  ) {}

  /** The outputs so far. */
  readonly outputs = new OutputAccumulator();
  /** True once ended (or given up on). */
  finished = false;
  /** Set when this side asked the kernel to stop; the first reason wins. */
  stopReason: StopReason | null = null;
  /** With `kernel-died`, what happened, when known. */
  kernelEvent: 'restarted' | 'lost' | null = null;
  /** The kernel did not stop when interrupted. */
  notStopped = false;
  /** The kernel ignored the user's Stop and was restarted. */
  restartedAfterStop = false;

  /** End with the kernel's `reply`, or without one (`forced`). */
  end(
    reply: KernelMessage.IExecuteReplyMsg['content'] | null,
    forced?: RunStatus
  ): void {
    this.finished = true;
    this._finishedAt = Date.now();
    if (reply && reply.execution_count !== undefined) {
      this.outputs.executionCount =
        reply.execution_count ?? this.outputs.executionCount;
    }
    const error = this.outputs.outputs.find(o => o.type === 'error');
    const ename = reply?.status === 'error' ? reply.ename : error?.ename;
    // ipykernel raises StdinNotImplementedError for input() with stdin off.
    this._stdinRefused = ename === 'StdinNotImplementedError';
    if (forced === 'kernel-died' && !this.restartedAfterStop) {
      this._status = 'kernel-died';
    } else if (this.stopReason) {
      this._status = this.stopReason;
    } else if (forced) {
      this._status = forced;
    } else if (isAbortReply(reply?.status)) {
      // Skipped by the kernel because an earlier queued request failed.
      this._status = 'aborted';
    } else {
      this._status = reply?.status === 'error' || error ? 'error' : 'ok';
    }
  }

  /** The result now; `running` until ended. */
  snapshot(): IRunResult {
    const result: IRunResult = {
      cellId: this.cellId,
      status: this.finished ? this._status : 'running',
      executionCount: this.outputs.executionCount,
      outputs: [...this.outputs.outputs],
      elapsedMs: (this._finishedAt ?? Date.now()) - this.started
    };
    if (this._stdinRefused) {
      result.stdinRefused = true;
    }
    if (this.kernelEvent && this._status === 'kernel-died') {
      result.kernelEvent = this.kernelEvent;
    }
    if (this.notStopped) {
      result.notStopped = true;
    }
    if (this.restartedAfterStop) {
      result.kernelRestarted = true;
    }
    return result;
  }

  private _status: RunStatus = 'running';
  private _finishedAt: number | null = null;
  private _stdinRefused = false;
}

/**
 * An execute_reply's status for a request the kernel skipped. Kernels send
 * `aborted`; JupyterLab 4.0's types declare only `abort` (later ones both).
 */
function isAbortReply(status: string | undefined): boolean {
  return status === 'aborted' || status === 'abort';
}
