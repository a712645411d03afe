/**
 * INotebookPort over a Jupyter server, from Node: the notebook file through
 * the contents API, its kernel through a session, both via
 * @jupyterlab/services.
 *
 * The notebook lives in memory while the agent works; `save()` writes it
 * back (the agent core never saves; the runner decides when). Runs are
 * watched executions (./execution.ts), so a run never hangs the agent.
 */
import {
  ContentsManager,
  type Kernel,
  type ServerConnection
} from '@jupyterlab/services';
import {
  NotebookPortError,
  type ICellSnapshot,
  type IFileEntry,
  type IInsertOptions,
  type INotebookPort,
  type IRunOptions,
  type IRunResult,
  type KernelState
} from '../agent/ports';
import { CellStore } from './cell-store';
import {
  isSameVersion,
  NotebookConflictError,
  readDiskVersion,
  type IDiskVersion
} from './disk-version';
import { WatchedExecution } from './execution';
import { KernelLink } from './kernel-link';
import { openKernelSession, type IKernelSession } from './kernel-session';
import {
  listServerFiles,
  loadServerNotebook,
  readServerFile,
  saveServerNotebook,
  type ILoadedNotebook
} from './server-files';
import { UndoHistory } from './undo-history';

/** Default wait for a new kernel's first answer (see IOptions). */
const KERNEL_START_TIMEOUT_MS = 120000;

/** A notebook file and its kernel session on a Jupyter server. */
export class ServerNotebookPort implements INotebookPort {
  readonly path: string;

  private constructor(
    path: string,
    loaded: ILoadedNotebook,
    private readonly _contents: ContentsManager,
    private readonly _serverSettings: ServerConnection.ISettings
  ) {
    this.path = path;
    this._cells = new CellStore(loaded.doc, path);
    this._undo = new UndoHistory(loaded.doc);
    this._version = loaded.version;
  }

  /**
   * Load (or create) the notebook at `path` and start a kernel session for
   * it, or connect to the session the server already has for that path.
   * Resolves once the kernel answered kernel_info.
   */
  static async open(
    options: ServerNotebookPort.IOptions
  ): Promise<ServerNotebookPort> {
    const contents = new ContentsManager({
      serverSettings: options.serverSettings
    });
    let loaded: ILoadedNotebook;
    try {
      loaded = await loadServerNotebook(contents, options.path, options);
    } catch (error) {
      contents.dispose();
      throw error;
    }
    const port = new ServerNotebookPort(
      options.path,
      loaded,
      contents,
      options.serverSettings
    );
    try {
      port._session = await openKernelSession(options, loaded.doc);
      port._link = await port._connectKernel(
        port._session.kernel,
        options.kernelStartTimeoutMs ?? KERNEL_START_TIMEOUT_MS
      );
    } catch (error) {
      await port.close().catch(() => undefined);
      throw error;
    }
    return port;
  }

  /** True when this port started the notebook's kernel (rather than joining a session). */
  get ownsKernel(): boolean {
    return this._session?.started ?? false;
  }

  /** The kernel connection, for callers that need the raw kernel (benchmarks). */
  get kernel(): Kernel.IKernelConnection | null {
    return this._link?.kernel ?? null;
  }

  async getCells(): Promise<ICellSnapshot[]> {
    return this._cells.snapshots();
  }

  async insertCell(options: IInsertOptions): Promise<ICellSnapshot> {
    return this._cells.insert(options);
  }

  async editCell(cellId: string, source: string): Promise<ICellSnapshot> {
    return this._cells.edit(cellId, source);
  }

  async deleteCell(cellId: string): Promise<void> {
    this._cells.delete(cellId);
  }

  async runCell(
    cellId: string,
    options: IRunOptions = {}
  ): Promise<IRunResult> {
    const cell = this._cells.get(cellId);
    if (cell.type !== 'code') {
      throw new NotebookPortError(
        `Cell ${cellId} is a ${cell.type} cell; only code cells run. ` +
          'Insert a code cell for the code you want to run.'
      );
    }
    if (this._runs.get(cellId)?.finished === false) {
      throw new NotebookPortError(
        `Cell ${cellId} is still running. Call wait to keep watching it, ` +
          'or interrupt_kernel to stop it, before running it again.'
      );
    }
    await this._settled();
    if (options.signal?.aborted) {
      return { cellId, status: 'aborted', executionCount: null, outputs: [] };
    }
    const execution = this._execute(cell.source, cellId, false, run => {
      const { outputs, executionCount } = run.snapshot();
      cell.outputs = outputs;
      cell.executionCount = executionCount;
    });
    cell.outputs = [];
    cell.executionCount = null;
    cell.lastRunSource = cell.source;
    this._runs.set(cellId, execution);
    return execution.watch(options);
  }

  async waitForCell(
    cellId: string,
    options: IRunOptions = {}
  ): Promise<IRunResult> {
    // The last run of the cell, finished or not: the model may ask about a
    // run that ended after its previous wait returned `running`.
    const execution = this._runs.get(cellId);
    if (!execution) {
      throw new NotebookPortError(
        `Cell ${cellId} has not been run by the agent, so there is nothing ` +
          'to wait for. Call run_cell to run it.'
      );
    }
    return execution.watch(options);
  }

  async executeCode(
    code: string,
    options: IRunOptions & { silent?: boolean } = {}
  ): Promise<IRunResult> {
    await this._settled();
    if (options.signal?.aborted) {
      return {
        cellId: null,
        status: 'aborted',
        executionCount: null,
        outputs: []
      };
    }
    const execution = this._execute(code, null, options.silent ?? false);
    return execution.watch(options);
  }

  /**
   * Interrupt the kernel. Executions this port started and that are still
   * running end as `aborted` (their outputs keep the KeyboardInterrupt).
   */
  async interrupt(): Promise<void> {
    for (const execution of this._executions) {
      execution.stop('aborted', true);
    }
    await this._interruptKernel();
  }

  async restartKernel(): Promise<void> {
    if (!this._link || !this._session || this._closed) {
      this._requireKernel();
      return;
    }
    // Running executions see their connection go and end as kernel-died.
    await this._link.restart();
    if (this._link.state === 'dead') {
      // The server gave up on this kernel (it died too often): start another.
      this._link.dispose();
      const model = await this._session.replaceKernel();
      this._link = await this._connectKernel(model);
    }
  }

  kernelState(): KernelState {
    return this._link && !this._closed ? this._link.state : 'none';
  }

  listFiles(path: string): Promise<IFileEntry[]> {
    return listServerFiles(this._contents, path);
  }

  readFile(path: string): Promise<string> {
    return readServerFile(this._contents, path);
  }

  // A file on a server has no undo history: the port keeps one in memory
  // (./undo-history.ts), one step per outermost group.
  beginUndoGroup(): void {
    this._undo.begin();
  }

  endUndoGroup(): void {
    this._undo.end();
  }

  /**
   * Undo the last group of changes (an agent run): every cell back as it
   * was, byte for byte. False when there is nothing to undo. Like any
   * change, it reaches the file on the next `save()`.
   */
  undo(): boolean {
    return this._undo.undo();
  }

  /**
   * Write the notebook back to its file (nbformat 4.5, with cell ids).
   * Rejects with a NotebookConflictError, writing nothing, when the file
   * changed on disk since this port read or last wrote it, unless
   * `overwrite` says to replace it anyway.
   */
  async save(options: { overwrite?: boolean } = {}): Promise<void> {
    if (!options.overwrite) {
      const now = await readDiskVersion(this._contents, this.path);
      if (!isSameVersion(this._version, now)) {
        throw new NotebookConflictError(this.path, now);
      }
    }
    this._version = await saveServerNotebook(
      this._contents,
      this.path,
      this._cells.doc
    );
  }

  /**
   * Write the notebook to another path (the file at `path` itself is left
   * alone), e.g. to keep the agent's work after a NotebookConflictError.
   * Refuses to replace an existing file.
   */
  async saveCopy(path: string): Promise<void> {
    if (await readDiskVersion(this._contents, path)) {
      throw new NotebookPortError(
        `${path} already exists; choose another name.`
      );
    }
    await saveServerNotebook(this._contents, path, this._cells.doc);
  }

  /**
   * Stop watching, close the kernel connection and, when `shutdownKernel`
   * says so (default: when this port started the session), shut the kernel
   * down. Does not save.
   */
  async close(options: { shutdownKernel?: boolean } = {}): Promise<void> {
    if (this._closed) {
      return;
    }
    this._closed = true;
    for (const execution of this._executions) {
      execution.abandon();
    }
    this._link?.dispose();
    this._link = null;
    try {
      if (this._session && (options.shutdownKernel ?? this._session.started)) {
        // Shutting the session down shuts its kernel down.
        await this._session.shutdown();
      }
    } finally {
      this._contents.dispose();
    }
  }

  /** Close, shutting the kernel down if this port started it. */
  dispose(): Promise<void> {
    return this.close();
  }

  /** A link to the kernel `model`; executions end at once if it is lost. */
  private _connectKernel(
    model: Kernel.IModel,
    timeoutMs?: number
  ): Promise<KernelLink> {
    return KernelLink.connect(this._serverSettings, model, timeoutMs, () => {
      for (const execution of this._executions) {
        execution.abandon('lost');
      }
    });
  }

  /** Wait (bounded) for a kernel restart under way to finish. */
  private async _settled(): Promise<void> {
    await this._link?.settled();
  }

  private _execute(
    code: string,
    cellId: string | null,
    silent: boolean,
    onChange?: (execution: WatchedExecution) => void
  ): WatchedExecution {
    const kernel = this._requireKernel();
    let execution: WatchedExecution;
    try {
      execution = new WatchedExecution({
        kernel,
        code,
        cellId,
        silent,
        interrupt: () => this._interruptKernel(),
        onChange: run => {
          onChange?.(run);
          if (run.finished) {
            this._executions.delete(run);
          }
        }
      });
    } catch (error) {
      throw new NotebookPortError(
        `The kernel of ${this.path} cannot run code now ` +
          `(${(error as Error).message}; state: ${this.kernelState()}). ` +
          'Restart the kernel, then run the cells again.'
      );
    }
    this._executions.add(execution);
    return execution;
  }

  private async _interruptKernel(): Promise<void> {
    await this._link?.interrupt();
  }

  private _requireKernel(): Kernel.IKernelConnection {
    if (this._closed || !this._link) {
      throw new NotebookPortError(
        `${this.path} has no kernel (the agent's connection was closed). ` +
          'Nothing can run; tell the user.'
      );
    }
    const kernel = this._link.kernel;
    if (this._link.lost) {
      throw new NotebookPortError(
        `The kernel of ${this.path} is gone: the Jupyter server restarted or ` +
          'stopped, or someone shut the kernel down. Call restart_kernel to ' +
          'start a new one, then run the cells that define what you need again.'
      );
    }
    if (!kernel || kernel.isDisposed) {
      throw new NotebookPortError(
        `The kernel of ${this.path} is ${this._link.state}: it died and ` +
          'did not come back. Call restart_kernel, then run the cells again.'
      );
    }
    return kernel;
  }

  private readonly _cells: CellStore;
  private readonly _undo: UndoHistory;
  /** The file's version this port last read or wrote. */
  private _version: IDiskVersion;
  private _session: IKernelSession | null = null;
  private _link: KernelLink | null = null;
  private _closed = false;
  /** The last run of each cell, kept after it ends for waitForCell. */
  private readonly _runs = new Map<string, WatchedExecution>();
  /** Every execution still in flight (cells and scratch code). */
  private readonly _executions = new Set<WatchedExecution>();
}

/** Options of ServerNotebookPort. */
export namespace ServerNotebookPort {
  /** Which notebook on which server. */
  export interface IOptions {
    /** Connection settings (see JupyterServerProcess.makeNodeSettings). */
    serverSettings: ServerConnection.ISettings;
    /** Notebook path relative to the server root. */
    path: string;
    /** Kernel for a new session; default: the notebook's kernelspec, else python3. */
    kernelName?: string;
    /** Create an empty notebook when there is none at `path` (default false). */
    createIfMissing?: boolean;
    /**
     * How long a freshly started kernel may take to answer (default 120 s:
     * on a busy shared server, ipykernel's start-up can take a minute).
     */
    kernelStartTimeoutMs?: number;
  }
}
