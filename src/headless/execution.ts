/**
 * One watched execute_request: its outputs, how it ended, and the watching
 * itself (soft and hard timeouts, abort, kernel death).
 *
 * Nothing here may hang: every way of waiting races the kernel's reply
 * against the kernel dying or restarting, and once this side has asked the
 * kernel to stop (abort, hard timeout) the reply is awaited only for a short
 * grace period, after which the execution is given up on.
 */
import type { Kernel, KernelMessage } from '@jupyterlab/services';
import type { IRunOptions, IRunResult, RunStatus } from '../agent/ports';
import { OutputAccumulator } from './output-accumulator';

/** How long to wait for the reply after interrupting, before giving up. */
const STOP_GRACE_MS = 3000;

/** Why this side stopped an execution. */
export type StopReason = 'aborted' | 'timeout';

/** An execution in the kernel, watched from Node. */
export class WatchedExecution {
  /** Date.now() when the request was sent; timeouts count from here. */
  readonly started = Date.now();

  /**
   * Send `code` to `kernel` with stdin disabled and start collecting.
   * Throws the kernel connection's error when it cannot send (e.g. dead).
   */
  constructor(options: WatchedExecution.IOptions) {
    this._cellId = options.cellId;
    this._kernel = options.kernel;
    this._onChange = options.onChange;
    this._interruptKernel = options.interrupt;
    this._done = new Promise(resolve => {
      this._resolveDone = resolve;
    });
    this._kernel.statusChanged.connect(this._onStatus, this);
    this._kernel.connectionStatusChanged.connect(this._onConnection, this);
    this._kernel.iopubMessage.connect(this._onIOPub, this);
    const silent = options.silent ?? false;
    try {
      this._future = this._kernel.requestExecute({
        code: options.code,
        silent,
        store_history: !silent,
        user_expressions: {},
        allow_stdin: false,
        stop_on_error: true
      });
    } catch (error) {
      this._disconnect();
      throw error;
    }
    this._future.onIOPub = msg => {
      if (this._finished) {
        return;
      }
      const changed = this._accumulator.add(msg);
      if (changed || msg.header.msg_type === 'execute_input') {
        this._changed();
      }
    };
    this._future.done.then(
      reply => this._finish(reply.content),
      () => {
        // The connection disposed the future: the kernel restarted or the
        // connection closed. The status handlers usually saw it first.
        this._finish(null, 'kernel-died');
      }
    );
  }

  /** True once the execution ended (or was given up on). */
  get finished(): boolean {
    return this._finished;
  }

  /** Resolves when the execution ended (or was given up on); never rejects. */
  get done(): Promise<void> {
    return this._done;
  }

  /** The result now; `running` until finished. */
  snapshot(): IRunResult {
    const result: IRunResult = {
      cellId: this._cellId,
      status: this._finished ? this._status : 'running',
      executionCount: this._accumulator.executionCount,
      outputs: [...this._accumulator.outputs],
      elapsedMs: (this._finishedAt ?? Date.now()) - this.started
    };
    if (this._stdinRefused) {
      result.stdinRefused = true;
    }
    if (this._kernelEvent && this._status === 'kernel-died') {
      result.kernelEvent = this._kernelEvent;
    }
    if (this._notStopped) {
      result.notStopped = true;
    }
    return result;
  }

  /**
   * Ask the kernel to stop this execution; it ends as `reason` (the first
   * reason wins). The caller interrupts the kernel unless `interrupted`
   * says it already did (one interrupt serves every execution).
   */
  stop(reason: StopReason, interrupted = false): void {
    if (this._finished || this._stopReason) {
      return;
    }
    this._stopReason = reason;
    if (!interrupted) {
      void this._interruptKernel().catch(() => undefined);
    }
    // The kernel may ignore SIGINT (e.g. stuck in C code): do not wait
    // forever, and say that it is still running the code.
    this._graceTimer = setTimeout(() => {
      this._notStopped = true;
      this._finish(null, reason);
    }, STOP_GRACE_MS);
  }

  /**
   * Give up on the execution (the port is closing, or the kernel is gone:
   * `event`); it ends as `kernel-died`.
   */
  abandon(event?: 'lost'): void {
    if (!this._finished) {
      this._kernelEvent = event ?? null;
    }
    this._finish(null, 'kernel-died');
  }

  /**
   * Watch until the execution ends or the soft timeout passes (then the
   * result says `running`). A hard timeout or an abort stops it.
   */
  async watch(options: IRunOptions = {}): Promise<IRunResult> {
    const { signal, softTimeoutMs, hardTimeoutMs } = options;
    if (this._finished) {
      return this.snapshot();
    }
    const timers: Array<ReturnType<typeof setTimeout>> = [];
    let softPassed: () => void = () => undefined;
    const soft = new Promise<'soft'>(resolve => {
      softPassed = () => resolve('soft');
    });
    const onAbort = () => {
      this.stop('aborted');
    };
    try {
      signal?.addEventListener('abort', onAbort);
      if (signal?.aborted) {
        onAbort();
      }
      if (hardTimeoutMs !== undefined) {
        const left = hardTimeoutMs - (Date.now() - this.started);
        timers.push(setTimeout(() => this.stop('timeout'), Math.max(0, left)));
      }
      if (softTimeoutMs !== undefined) {
        timers.push(setTimeout(softPassed, Math.max(0, softTimeoutMs)));
      }
      for (;;) {
        const outcome = await Promise.race([
          this._done.then(() => 'done' as const),
          soft
        ]);
        // Once stopping, the caller wants the end, which the grace timer
        // bounds; a soft timeout no longer returns early.
        if (outcome === 'done' || !this._stopReason) {
          return this.snapshot();
        }
        await this._done;
      }
    } finally {
      timers.forEach(clearTimeout);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  private _onStatus(_: Kernel.IKernelConnection, status: Kernel.Status): void {
    if (
      status === 'dead' ||
      status === 'restarting' ||
      status === 'autorestarting'
    ) {
      this._finish(null, 'kernel-died');
    }
  }

  /**
   * Someone else restarted or shut the kernel down through the REST API:
   * the server tells no client, but the kernel broadcasts its shutdown
   * reply on iopub. This execution's reply will never come.
   */
  private _onIOPub(
    _: Kernel.IKernelConnection,
    msg: KernelMessage.IIOPubMessage
  ): void {
    if ((msg.header.msg_type as string) !== 'shutdown_reply') {
      return;
    }
    const restart = (msg.content as { restart?: unknown }).restart === true;
    this._kernelEvent = restart ? 'restarted' : 'lost';
    this._finish(null, 'kernel-died');
  }

  private _onConnection(
    _: Kernel.IKernelConnection,
    status: Kernel.ConnectionStatus
  ): void {
    // 'connecting' is a transient reconnect (the kernel keeps running);
    // 'disconnected' is final.
    if (status === 'disconnected') {
      this._finish(null, 'kernel-died');
    }
  }

  private _finish(
    reply: KernelMessage.IExecuteReplyMsg['content'] | null,
    forced?: RunStatus
  ): void {
    if (this._finished) {
      return;
    }
    this._finished = true;
    this._finishedAt = Date.now();
    if (reply && reply.execution_count !== undefined) {
      this._accumulator.executionCount =
        reply.execution_count ?? this._accumulator.executionCount;
    }
    const outputs = this._accumulator.outputs;
    const errored =
      reply?.status === 'error' || outputs.some(o => o.type === 'error');
    const ename =
      reply?.status === 'error'
        ? reply.ename
        : outputs.find(o => o.type === 'error')?.ename;
    // ipykernel raises StdinNotImplementedError for input() with stdin off.
    this._stdinRefused = outputs.some(
      o => o.type === 'error' && o.ename === 'StdinNotImplementedError'
    );
    this._stdinRefused ||= ename === 'StdinNotImplementedError';
    if (forced === 'kernel-died') {
      this._status = 'kernel-died';
    } else if (this._stopReason) {
      this._status = this._stopReason;
    } else if (forced) {
      this._status = forced;
    } else if (reply?.status === 'aborted') {
      // Skipped by the kernel because an earlier queued request failed.
      this._status = 'aborted';
    } else {
      this._status = errored ? 'error' : 'ok';
    }
    if (this._graceTimer) {
      clearTimeout(this._graceTimer);
    }
    this._disconnect();
    if (!reply) {
      // Given up on: later messages must not land in the outputs.
      this._future?.dispose();
    }
    this._changed();
    this._resolveDone();
  }

  private _changed(): void {
    this._onChange?.(this);
  }

  private _disconnect(): void {
    this._kernel.statusChanged.disconnect(this._onStatus, this);
    this._kernel.connectionStatusChanged.disconnect(this._onConnection, this);
    this._kernel.iopubMessage.disconnect(this._onIOPub, this);
  }

  private readonly _cellId: string | null;
  private readonly _kernel: Kernel.IKernelConnection;
  private readonly _onChange?: (execution: WatchedExecution) => void;
  private readonly _interruptKernel: () => Promise<void>;
  private readonly _accumulator = new OutputAccumulator();
  private readonly _done: Promise<void>;
  private _resolveDone: () => void = () => undefined;
  private _future: Kernel.IShellFuture<
    KernelMessage.IExecuteRequestMsg,
    KernelMessage.IExecuteReplyMsg
  > | null = null;
  private _finished = false;
  private _finishedAt: number | null = null;
  private _status: RunStatus = 'running';
  private _stopReason: StopReason | null = null;
  private _stdinRefused = false;
  private _kernelEvent: 'restarted' | 'lost' | null = null;
  private _notStopped = false;
  private _graceTimer: ReturnType<typeof setTimeout> | null = null;
}

/** Options of WatchedExecution. */
export namespace WatchedExecution {
  /** What to execute, where, and whom to tell. */
  export interface IOptions {
    kernel: Kernel.IKernelConnection;
    code: string;
    /** The cell, or null for scratch code. */
    cellId: string | null;
    /** No execution count, no history (scratch inspection). */
    silent?: boolean;
    /** Interrupt the kernel (the port's, so it can count interrupts). */
    interrupt: () => Promise<void>;
    /** Called whenever outputs or the execution count change, and at the end. */
    onChange?: (execution: WatchedExecution) => void;
  }
}
