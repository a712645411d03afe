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
import { WatchedExecution } from './execution';
import { KernelLink } from './kernel-link';
import { openKernelSession, type IKernelSession } from './kernel-session';
import type { INotebookDocument } from './notebook-file';
import {
  listServerFiles,
  loadServerNotebook,
  readServerFile,
  saveServerNotebook
} from './server-files';

/** A notebook file and its kernel session on a Jupyter server. */
export class ServerNotebookPort implements INotebookPort {
  readonly path: string;

  private constructor(
    path: string,
    doc: INotebookDocument,
    private readonly _contents: ContentsManager,
    private readonly _serverSettings: ServerConnection.ISettings
  ) {
    this.path = path;
    this._cells = new CellStore(doc, path);
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
    let doc: INotebookDocument;
    try {
      doc = await loadServerNotebook(contents, options.path, options);
    } catch (error) {
      contents.dispose();
      throw error;
    }
    const port = new ServerNotebookPort(
      options.path,
      doc,
      contents,
      options.serverSettings
    );
    try {
      port._session = await openKernelSession(options, doc);
      port._link = await KernelLink.connect(
        options.serverSettings,
        port._session.kernel
      );
    } catch (error) {
      await port.close().catch(() => undefined);
      throw error;
    }
    return port;
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
      this._link = await KernelLink.connect(this._serverSettings, model);
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

  // A file on a server has no undo history: the agent's changes become one
  // step only in a live notebook. Nothing to group here.
  beginUndoGroup(): void {
    // No undo history.
  }

  endUndoGroup(): void {
    // No undo history.
  }

  /** Write the notebook back to its file (nbformat 4.5, with cell ids). */
  save(): Promise<void> {
    return saveServerNotebook(this._contents, this.path, this._cells.doc);
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
    if (!kernel || kernel.isDisposed) {
      throw new NotebookPortError(
        `The kernel of ${this.path} is ${this._link.state}: it died and ` +
          'did not come back. Call restart_kernel, then run the cells again.'
      );
    }
    return kernel;
  }

  private readonly _cells: CellStore;
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
  }
}
