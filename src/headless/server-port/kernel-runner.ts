/**
 * The kernel side of a ServerNotebookPort: the notebook's session, the link
 * to its kernel, and every execution still in flight on it.
 *
 * These live together because they fail together: when the kernel is lost
 * every execution must end at once, a restart the server gives up on needs
 * a new kernel and a new link, and closing must abandon the executions
 * before the connection goes. Refusals are written for the model: each says
 * what it can do next.
 */
import type { Kernel, ServerConnection } from '@jupyterlab/services';
import {
  NotebookPortError,
  type IInterruptOptions,
  type IRunOptions,
  type IRunResult,
  type KernelState
} from '../../agent/ports';
import { RunTracker } from '../../kernel/run-tracker';
import { WatchedExecution } from '../../kernel/watched-execution';
import { KernelLink } from './kernel-link';
import { openKernelSession, type IKernelSession } from './kernel-session';
import type { INotebookDocument } from './notebook-file';

/** Default wait for a new kernel's first answer (see ServerNotebookPort.IOptions). */
const KERNEL_START_TIMEOUT_MS = 120000;

/** A notebook's kernel session and the executions running on it. */
export class KernelRunner {
  /** `path` is the notebook's; it also names it in error messages. */
  constructor(
    private readonly _path: string,
    private readonly _serverSettings: ServerConnection.ISettings
  ) {}

  /**
   * Join the session the server has for the notebook, or start one, and
   * resolve once its kernel answered kernel_info.
   */
  async open(
    options: { kernelName?: string; kernelStartTimeoutMs?: number },
    doc: INotebookDocument
  ): Promise<void> {
    this._session = await openKernelSession(
      {
        serverSettings: this._serverSettings,
        path: this._path,
        kernelName: options.kernelName
      },
      doc
    );
    this._link = await this._connect(
      this._session.kernel,
      options.kernelStartTimeoutMs ?? KERNEL_START_TIMEOUT_MS
    );
  }

  /** True when the session was started here (rather than joined). */
  get ownsKernel(): boolean {
    return this._session?.started ?? false;
  }

  /** The raw kernel connection, or null when there is none. */
  get kernel(): Kernel.IKernelConnection | null {
    return this._link?.kernel ?? null;
  }

  /** True once `close` was called. */
  get closed(): boolean {
    return this._closed;
  }

  state(): KernelState {
    return this._link && !this._closed ? this._link.state : 'none';
  }

  /** Wait (bounded) for a kernel restart under way to finish. */
  async settled(): Promise<void> {
    await this._link?.settled();
  }

  /** The executions started here: by cell, and those in flight. */
  get runs(): RunTracker {
    return this._runs;
  }

  /**
   * Start a watched execution of `code` (a cell's when `cellId` is given:
   * counted and in the history); `onChange` sees every change of it.
   * Throws a NotebookPortError when the kernel cannot run code now.
   */
  execute(
    code: string,
    cellId: string | null,
    silent: boolean,
    onChange?: (execution: WatchedExecution) => void
  ): WatchedExecution {
    const kernel = this._require();
    let execution: WatchedExecution;
    try {
      execution = WatchedExecution.send({
        kernel,
        code,
        cellId,
        silent,
        storeHistory: cellId !== null && !silent,
        interrupt: () => this._interruptKernel(),
        // After the user's ignored Stop: the kernel cannot agree to shut down.
        restart: () => this.restart(true),
        onChange
      });
    } catch (error) {
      throw new NotebookPortError(
        `The kernel of ${this._path} cannot run code now ` +
          `(${(error as Error).message}; state: ${this.state()}). ` +
          'Restart the kernel, then run the cells again.'
      );
    }
    this._runs.add(execution);
    return execution;
  }

  /** Run code that belongs to no cell (see INotebookPort.executeCode). */
  async executeCode(
    code: string,
    options: IRunOptions & { silent?: boolean }
  ): Promise<IRunResult> {
    await this.settled();
    if (options.signal?.aborted) {
      return {
        cellId: null,
        status: 'aborted',
        executionCount: null,
        outputs: []
      };
    }
    const execution = this.execute(code, null, options.silent ?? false);
    return execution.watch(options);
  }

  /**
   * Interrupt the kernel. Executions started here that are still running
   * end as `aborted` (their outputs keep the KeyboardInterrupt); see
   * IInterruptOptions for the user's Stop.
   */
  async interrupt(options: IInterruptOptions = {}): Promise<void> {
    this._runs.stopAll(options.userStop ?? false);
    await this._interruptKernel().catch(error => {
      if (!options.userStop) {
        throw error;
      }
    });
    if (options.userStop) {
      await this._runs.settled();
    }
  }

  async restart(noWait = false): Promise<void> {
    if (!this._link || !this._session || this._closed) {
      this._require();
      return;
    }
    // Running executions see their connection go and end as kernel-died.
    await this._link.restart(noWait);
    if (this._link.state === 'dead') {
      // The server gave up on this kernel (it died too often): start another.
      this._link.dispose();
      const model = await this._session.replaceKernel();
      this._link = await this._connect(model);
    }
  }

  /**
   * Stop watching, close the kernel connection and, when `shutdownKernel`
   * says so (default: when the session was started here), shut the kernel
   * down.
   */
  async close(shutdownKernel?: boolean): Promise<void> {
    this._closed = true;
    this._runs.abandonAll();
    this._link?.dispose();
    this._link = null;
    if (this._session && (shutdownKernel ?? this._session.started)) {
      // Shutting the session down shuts its kernel down.
      await this._session.shutdown();
    }
  }

  /** A link to the kernel `model`; executions end at once if it is lost. */
  private _connect(
    model: Kernel.IModel,
    timeoutMs?: number
  ): Promise<KernelLink> {
    return KernelLink.connect(this._serverSettings, model, timeoutMs, () =>
      this._runs.abandonAll('lost')
    );
  }

  private async _interruptKernel(): Promise<void> {
    await this._link?.interrupt();
  }

  private _require(): Kernel.IKernelConnection {
    if (this._closed || !this._link) {
      throw new NotebookPortError(
        `${this._path} has no kernel (the agent's connection was closed). ` +
          'Nothing can run; tell the user.'
      );
    }
    const kernel = this._link.kernel;
    if (this._link.lost) {
      throw new NotebookPortError(
        `The kernel of ${this._path} is gone: the Jupyter server restarted or ` +
          'stopped, or someone shut the kernel down. Call restart_kernel to ' +
          'start a new one, then run the cells that define what you need again.'
      );
    }
    if (!kernel || kernel.isDisposed) {
      throw new NotebookPortError(
        `The kernel of ${this._path} is ${this._link.state}: it died and ` +
          'did not come back. Call restart_kernel, then run the cells again.'
      );
    }
    return kernel;
  }

  private _session: IKernelSession | null = null;
  private _link: KernelLink | null = null;
  private _closed = false;
  /** Every execution started here (cells and scratch code). */
  private readonly _runs = new RunTracker();
}
