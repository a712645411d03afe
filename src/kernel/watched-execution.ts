/**
 * One watched execute_request, for every port: the wiring between a kernel
 * request and its record (./run-record.ts), and the stopping.
 *
 * An execution is either sent here (`send`: scratch code, and every cell of
 * the headless port), whose iopub messages only this side reads, or
 * observed (`observe`: a live notebook cell run the way Shift+Enter runs
 * it, whose output area renders the messages): then a message hook on the
 * request reads every message before the output area does and lets it
 * through, except the rest of a stream past the cap (./cut-stream-writer.ts).
 *
 * Nothing here may hang: the reply races the kernel going away
 * (./kernel-watch.ts), and once this side asked the kernel to stop (abort,
 * hard timeout) the reply is awaited only for STOP_GRACE_MS. A kernel that
 * has not stopped by then ignores SIGINT or is stuck in native code: the
 * run ends `notStopped`, or, after the user's Stop and when the caller can
 * restart the kernel, the kernel is restarted (`kernelRestarted`).
 *
 * An interrupt can miss, and the engine covers each way it does (issue #37,
 * reproduced under load with scripts/stress-port-case.sh):
 * - It reaches the kernel between requests, where ipykernel ignores SIGINT,
 *   or it stops a request queued ahead of this one. So while this request
 *   has not started, every execute_input after the stop (this request's or
 *   one ahead of it, seen on the kernel's iopub) is answered with another
 *   interrupt, and the grace period starts over (at most MAX_REARMS times).
 *   ipykernel installs its SIGINT handler before it publishes
 *   execute_input, so an interrupt sent after one is delivered.
 * - It lands in the kernel's own machinery after execute_input but before
 *   the code runs (under load, seen 1 in 20): ipykernel catches the
 *   KeyboardInterrupt, logs it and sends no execute_reply, only idle. The
 *   request is over, so an idle for it with no reply within
 *   REPLY_AFTER_IDLE_MS ends the run as stopped (not `notStopped`).
 * Interrupts are not repeated on a timer: a second one inside the code
 * would cut short its own `except KeyboardInterrupt:` clean-up.
 */
import type { Kernel, KernelMessage } from '@jupyterlab/services';
import type {
  CellOutput,
  IRunOptions,
  IRunResult,
  RunStatus
} from '../agent/ports';
import { CutStreamWriter } from './cut-stream-writer';
import { isGoneStatus } from './kernel-state';
import { watchKernel, type KernelGone } from './kernel-watch';
import { RunRecord, type StopReason } from './run-record';
import { watchRun } from '../agent/watch-run';

/** How long to wait for the reply after interrupting, before giving up. */
export const STOP_GRACE_MS = 3000;

/**
 * How long an idle for this request may come before its execute_reply
 * (they travel on different channels) before the request counts as ended
 * without one.
 */
export const REPLY_AFTER_IDLE_MS = 1000;

/** How many times an interrupt may be repeated, each with a new grace period. */
const MAX_REARMS = 4;

/** Bound on the restart after an ignored Stop. */
const RESTART_TIMEOUT_MS = 20000;

type Future = Kernel.IShellFuture<
  KernelMessage.IExecuteRequestMsg,
  KernelMessage.IExecuteReplyMsg
>;

/** An execution in a kernel, watched. */
export class WatchedExecution {
  /**
   * Send `code` with stdin disabled and collect its outputs. Throws the
   * connection's error when it cannot send (e.g. the kernel is dead).
   */
  static send(options: WatchedExecution.ISendOptions): WatchedExecution {
    const future = options.kernel.requestExecute({
      code: options.code,
      silent: options.silent ?? false,
      store_history: options.storeHistory,
      user_expressions: {},
      allow_stdin: false,
      stop_on_error: true
    });
    return new WatchedExecution(options, future, true, !options.silent);
  }

  /** Watch `future`, a request someone else sent (a live cell's output area). */
  static observe(options: WatchedExecution.IObserveOptions): WatchedExecution {
    return new WatchedExecution(options, options.future, false, true);
  }

  private constructor(
    private readonly _options: WatchedExecution.IOptions,
    private readonly _future: Future,
    private readonly _owned: boolean,
    echoesInput: boolean
  ) {
    // Silent requests publish no execute_input: never re-interrupted.
    this._begun = !echoesInput;
    this._record = new RunRecord(_options.cellId, Date.now());
    this._done = new Promise(resolve => (this._resolveDone = resolve));
    this._cutWriter = new CutStreamWriter(
      _owned
        ? undefined
        : (_options as WatchedExecution.IObserveOptions).onCutStream
    );
    if (_owned) {
      _future.onIOPub = msg => {
        if (!this.finished && this._accumulate(msg)) {
          this._changed();
        }
      };
    } else {
      _future.registerMessageHook(this._hook);
    }
    _future.done.then(
      reply => this._finish(reply.content),
      // Disposed: the kernel restarted or the connection closed (the watch
      // usually said so first), or someone ran the observed cell again.
      () =>
        setTimeout(() => {
          const rerun = !_owned && !isGoneStatus(_options.kernel.status);
          this._finish(null, rerun ? 'aborted' : 'kernel-died');
        }, 0)
    );
    this._unwatch = watchKernel(
      _options.kernel,
      {
        finished: () => this.finished,
        quietMs: () => Date.now() - this._lastMessageAt
      },
      why => this._gone(why)
    );
  }

  /** Date.now() when the request was sent; timeouts count from here. */
  get started(): number {
    return this._record.started;
  }

  /** The cell, or null for scratch code. */
  get cellId(): string | null {
    return this._record.cellId;
  }

  /** True once the execution ended (or was given up on). */
  get finished(): boolean {
    return this._record.finished;
  }

  /** True once this side asked the kernel to stop the execution. */
  get stopping(): boolean {
    return this._record.stopReason !== null;
  }

  /** Resolves when the execution ended (or was given up on); never rejects. */
  get done(): Promise<void> {
    return this._done;
  }

  /** The result now; `running` until finished. */
  snapshot(): IRunResult {
    return this._record.snapshot();
  }

  /**
   * Ask the kernel to stop this execution; it ends as `reason` (the first
   * reason wins). The caller interrupts the kernel unless `interrupted`
   * says it already did (one interrupt serves every execution). `byUser`:
   * the user's Stop, after which a kernel that ignores the interrupt is
   * restarted when the options say how.
   */
  stop(reason: StopReason, interrupted = false, byUser = false): void {
    if (this.finished || this.stopping) {
      return;
    }
    this._record.stopReason = reason;
    this._stopByUser = byUser;
    if (!this._begun) {
      this._watchQueueAhead();
    }
    if (!interrupted) {
      this._interrupt();
    }
    this._armGrace();
    if (this._idleTimer) {
      // Already idle with no reply: now the shorter wait applies.
      clearTimeout(this._idleTimer);
      this._idleTimer = null;
      this._idle();
    }
  }

  /**
   * Stopped before the kernel started this request: interrupt again at
   * every execution that starts until this one does (see the header).
   */
  private _watchQueueAhead(): void {
    const kernel = this._options.kernel;
    const ours = this._future.msg.header.msg_id;
    const onMessage = (
      _: Kernel.IKernelConnection,
      msg: KernelMessage.IIOPubMessage
    ) => {
      const parent = (msg.parent_header as Partial<KernelMessage.IHeader>)
        .msg_id;
      if (msg.header.msg_type === 'execute_input' && parent !== ours) {
        this._interruptAgain();
      }
    };
    kernel.iopubMessage.connect(onMessage);
    this._unwatchQueue = () => kernel.iopubMessage.disconnect(onMessage);
  }

  /** An execution started after the stop: interrupt it, and wait the grace again. */
  private _interruptAgain(): void {
    if (this.finished || this._rearms >= MAX_REARMS) {
      return;
    }
    this._rearms += 1;
    this._interrupt();
    this._armGrace();
  }

  private _interrupt(): void {
    void this._options.interrupt().catch(() => undefined);
  }

  /** After STOP_GRACE_MS without the end: notStopped, or a restart after the user's Stop. */
  private _armGrace(): void {
    if (this._graceTimer) {
      clearTimeout(this._graceTimer);
    }
    const reason = this._record.stopReason as StopReason;
    this._graceTimer = setTimeout(() => {
      const restart = this._options.restart;
      if (!this._stopByUser || !restart) {
        this._record.notStopped = true;
        this._finish(null, reason);
        return;
      }
      this._record.restartedAfterStop = true;
      let bound: ReturnType<typeof setTimeout> | undefined;
      void Promise.race([
        restart().catch(() => undefined),
        new Promise(done => (bound = setTimeout(done, RESTART_TIMEOUT_MS)))
      ]).then(() => {
        clearTimeout(bound);
        this._finish(null, reason);
      });
    }, STOP_GRACE_MS);
  }

  /** The kernel started this request: an interrupt sent before it was lost. */
  private _began(): void {
    this._begun = true;
    this._unwatchQueue();
    if (this.stopping && !this.finished) {
      this._interruptAgain();
    }
  }

  /**
   * The kernel said it is done with this request. Its reply comes with it;
   * none within REPLY_AFTER_IDLE_MS (after a stop; five times that
   * otherwise, since then nothing of ours can have made the kernel drop
   * it) means the kernel dropped the request: an interrupt landed before
   * the code ran. It is over.
   */
  private _idle(): void {
    if (this.finished || this._idleTimer) {
      return;
    }
    this._idleTimer = setTimeout(
      () => {
        this._idleTimer = null;
        if (!this.finished) {
          this._endedWithoutReply = true;
          this._finish(null, 'aborted');
        }
      },
      this.stopping ? REPLY_AFTER_IDLE_MS : 5 * REPLY_AFTER_IDLE_MS
    );
  }

  /** Give up on the execution (the port is closing, or the kernel is gone). */
  abandon(event?: 'lost'): void {
    this._gone(event ?? 'died');
  }

  /**
   * Watch until the execution ends or the soft timeout passes (then the
   * result says `running`). A hard timeout or an abort stops it.
   */
  watch(options: IRunOptions = {}): Promise<IRunResult> {
    return watchRun(this, options);
  }

  /** Observed requests: read each message, and keep a flood out of the cell. */
  private readonly _hook = (msg: KernelMessage.IIOPubMessage): boolean => {
    if (this.finished) {
      return true;
    }
    const changed = this._accumulate(msg);
    const pass = this._cutWriter.pass(msg, this._record.outputs);
    if (changed) {
      this._changed();
    }
    return pass;
  };

  /** Add a message to the outputs; true when they changed. */
  private _accumulate(msg: KernelMessage.IIOPubMessage): boolean {
    this._lastMessageAt = Date.now();
    if (msg.header.msg_type === 'execute_input' && !this._begun) {
      this._began();
    } else if (
      msg.header.msg_type === 'status' &&
      (msg as KernelMessage.IStatusMsg).content.execution_state === 'idle'
    ) {
      this._idle();
    }
    const changed = this._record.outputs.add(msg);
    return changed || msg.header.msg_type === 'execute_input';
  }

  private _gone(why: KernelGone): void {
    if (this._record.restartedAfterStop) {
      return; // our own restart: the stop ends the run
    }
    if (!this.finished && why !== 'died') {
      this._record.kernelEvent = why;
    }
    this._finish(null, 'kernel-died');
  }

  private _finish(
    reply: KernelMessage.IExecuteReplyMsg['content'] | null,
    forced?: RunStatus
  ): void {
    if (this.finished) {
      return;
    }
    this._cutWriter.flush();
    this._record.end(reply, forced);
    if (this._graceTimer) {
      clearTimeout(this._graceTimer);
    }
    if (this._idleTimer) {
      clearTimeout(this._idleTimer);
    }
    this._unwatch();
    this._unwatchQueue();
    if (!this._owned && !this._future.isDisposed) {
      this._future.removeMessageHook(this._hook);
    }
    if ((this._owned && !reply) || this._endedWithoutReply) {
      // Given up on: later messages must not land in the outputs. A live
      // cell's request the kernel dropped: disposing it is what clears the
      // cell's [*] (CodeCell.execute waits for a reply that never comes).
      this._future.dispose();
    }
    this._changed();
    this._resolveDone();
  }

  private _changed(): void {
    this._options.onChange?.(this);
  }

  private readonly _record: RunRecord;
  private readonly _cutWriter: CutStreamWriter;
  private readonly _unwatch: () => void;
  private readonly _done: Promise<void>;
  private _resolveDone: () => void = () => undefined;
  private _graceTimer: ReturnType<typeof setTimeout> | null = null;
  /** True once the kernel started the request (its execute_input). */
  private _begun: boolean;
  /** Interrupts repeated after the stop (bounded by MAX_REARMS). */
  private _rearms = 0;
  /** Stops watching the executions queued ahead (set while it does). */
  private _unwatchQueue: () => void = () => undefined;
  private _idleTimer: ReturnType<typeof setTimeout> | null = null;
  /** The kernel went idle for this request and never replied. */
  private _endedWithoutReply = false;
  private _stopByUser = false;
  private _lastMessageAt = Date.now();
}

/** Options of WatchedExecution. */
export namespace WatchedExecution {
  /** What every execution needs. */
  export interface IOptions {
    kernel: Kernel.IKernelConnection;
    /** The cell, or null for scratch code. */
    cellId: string | null;
    /** Interrupt the kernel (the port's, so it can count interrupts). */
    interrupt: () => Promise<void>;
    /** Restart the kernel after the user's ignored Stop; without it the run ends `notStopped`. */
    restart?: () => Promise<void>;
    /** Called whenever outputs or the execution count change, and at the end. */
    onChange?: (execution: WatchedExecution) => void;
  }

  /** An execution to send. */
  export interface ISendOptions extends IOptions {
    code: string;
    /** No execute_result, no execution count, no history (inspection). */
    silent?: boolean;
    /** Count it and add it to the kernel's history (cells do, scratch code does not). */
    storeHistory: boolean;
  }

  /** A request someone else sent, to watch. */
  export interface IObserveOptions extends IOptions {
    future: Future;
    /** Write a stream output that went past the cap into the cell, in place of its last output. */
    onCutStream?: (output: CellOutput) => void;
  }
}
