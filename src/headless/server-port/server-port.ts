/**
 * INotebookPort over a Jupyter server, from Node: the notebook file through
 * the contents API, its kernel through a session, both via
 * @jupyterlab/services.
 *
 * The notebook lives in memory while the agent works; `save()` writes it
 * back (the agent core never saves; the runner decides when). Runs are
 * watched executions of the shared engine (src/kernel/), so a run never
 * hangs the agent.
 * This class puts the parts together: cells (./cell-store.ts), their runs
 * (./cell-runs.ts), the kernel (./kernel-runner.ts), undo
 * (./undo-history.ts) and the file (./server-files.ts).
 */
import {
  ContentsManager,
  type Kernel,
  type ServerConnection
} from '@jupyterlab/services';
import { outputsNotRestored } from '../../agent/port-refusals';
import {
  NotebookPortError,
  type CellOutput,
  type IInterruptOptions,
  type ICellSnapshot,
  type IInsertOptions,
  type INotebookPort,
  type IRunOptions,
  type IRunResult,
  type KernelState
} from '../../agent/ports';
import { CellRuns } from './cell-runs';
import { CellStore } from './cell-store';
import {
  isSameVersion,
  NotebookConflictError,
  readDiskVersion,
  type IDiskVersion
} from './disk-version';
import { KernelRunner } from './kernel-runner';
import { ContentsFilesPort } from '../../kernel/files';
import {
  loadServerNotebook,
  saveServerNotebook,
  type ILoadedNotebook
} from './server-files';
import { UndoHistory } from './undo-history';

/** A notebook file and its kernel session on a Jupyter server. */
export class ServerNotebookPort
  extends ContentsFilesPort
  implements INotebookPort
{
  readonly path: string;

  // Its files are the engine's, over the contents API (ContentsFilesPort).
  private constructor(
    path: string,
    loaded: ILoadedNotebook,
    private readonly _contents: ContentsManager,
    serverSettings: ServerConnection.ISettings,
    newCellId?: () => string
  ) {
    super(_contents);
    this.path = path;
    this._cells = new CellStore(loaded.doc, path, newCellId);
    this._kernel = new KernelRunner(path, serverSettings);
    this._runs = new CellRuns(this._cells, this._kernel);
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
      options.serverSettings,
      options.newCellId
    );
    try {
      await port._kernel.open(options, loaded.doc);
    } catch (error) {
      await port.close().catch(() => undefined);
      throw error;
    }
    return port;
  }

  /** True when this port started the notebook's kernel (rather than joining a session). */
  get ownsKernel(): boolean {
    return this._kernel.ownsKernel;
  }

  /** The kernel connection, for callers that need the raw kernel (benchmarks). */
  get kernel(): Kernel.IKernelConnection | null {
    return this._kernel.kernel;
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

  async restoreOutputs(
    cellId: string,
    outputs: ReadonlyArray<CellOutput>,
    executionCount: number | null
  ): Promise<void> {
    const cell = this._cells.get(cellId);
    if (cell.type !== 'code' || this.runningCells().includes(cellId)) {
      throw outputsNotRestored(cellId, cell.type);
    }
    this._cells.restoreOutputs(cellId, outputs, executionCount);
  }

  runCell(cellId: string, options: IRunOptions = {}): Promise<IRunResult> {
    return this._runs.run(cellId, options);
  }

  waitForCell(cellId: string, options: IRunOptions = {}): Promise<IRunResult> {
    return this._runs.wait(cellId, options);
  }

  executeCode(
    code: string,
    options: IRunOptions & { silent?: boolean } = {}
  ): Promise<IRunResult> {
    return this._kernel.executeCode(code, options);
  }

  /**
   * Interrupt the kernel. Executions this port started and that are still
   * running end as `aborted` (their outputs keep the KeyboardInterrupt).
   */
  interrupt(options?: IInterruptOptions): Promise<void> {
    return this._kernel.interrupt(options);
  }

  runningCells(): string[] {
    return this._kernel.runs.runningCells();
  }

  restartKernel(): Promise<void> {
    // A busy kernel cannot agree to shut down: the graceful restart would
    // only wait for it (../kernel/no-wait-restart.ts).
    return this._kernel.restart(this._kernel.state() === 'busy');
  }

  kernelState(): KernelState {
    return this._kernel.state();
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
    if (this._kernel.closed) {
      return;
    }
    try {
      await this._kernel.close(options.shutdownKernel);
    } finally {
      this._contents.dispose();
    }
  }

  /** Close, shutting the kernel down if this port started it. */
  dispose(): Promise<void> {
    return this.close();
  }

  private readonly _cells: CellStore;
  private readonly _kernel: KernelRunner;
  private readonly _runs: CellRuns;
  private readonly _undo: UndoHistory;
  /** The file's version this port last read or wrote. */
  private _version: IDiskVersion;
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
    /**
     * Where new cells' ids come from (default: random UUIDs, as JupyterLab
     * makes them). The eval passes a sequence seeded by the task, so that a
     * rerun sends the model the same prompts: the ids are in them.
     */
    newCellId?: () => string;
  }
}
