/**
 * INotebookPort over a live JupyterLab notebook and its kernel.
 *
 * Cells are changed through the shared notebook model (so the change is
 * collaborative, undoable and rendered at once) and run the way Shift+Enter
 * runs them (`executeLikeShiftEnter`, below: stdin disabled, the outputs
 * untrusted), so outputs and execution counts render in the notebook as if
 * the user ran the cell; the shared engine
 * (src/kernel/) watches each run, as it does for the headless port. The
 * port holds on to its panel: the agent keeps working on the notebook it
 * started in, even when the user switches tabs. When the panel closes, the
 * port lets go of it, and interrupts the agent's code still running. Which
 * cells changed since they last ran it reads from the run log kept since
 * start (./run-log.ts): the port is built with the agent's first task.
 */
import { CodeCell, type ICodeCellModel } from '@jupyterlab/cells';
import type { NotebookPanel } from '@jupyterlab/notebook';
import type { ISessionContext } from '@jupyterlab/apputils';
import { Signal, type ISignal } from '@lumino/signaling';
import {
  KernelAPI,
  type Contents,
  type Kernel,
  type KernelMessage
} from '@jupyterlab/services';
import {
  NotebookPortError,
  type CellOutput,
  type ICellSnapshot,
  type IInsertOptions,
  type IInterruptOptions,
  type INotebookPort,
  type IRunOptions,
  type IRunResult,
  type KernelState
} from '../../agent/ports';
import { ContentsFilesPort } from '../../kernel/files';
import { notCodeCell, outputsNotRestored } from '../../agent/port-refusals';
import { nudgeIfSilent, until } from '../../kernel/kernel-probes';
import { toKernelState } from '../../kernel/kernel-state';
import { skipShutdownWait } from '../../kernel/no-wait-restart';
import { parseOutputs } from '../../kernel/nbformat-outputs';
import { RunTracker } from '../../kernel/run-tracker';
import { WatchedExecution } from '../../kernel/watched-execution';
import { untrustOutputs, writeCutStream } from './live-cell-outputs';
import { LivePanel } from './live-panel';
import { LiveUndoGroup } from './live-undo-group';
import { restoreCellOutputs } from './output-undo';
import type { LastRunSources } from './run-log';

/** The live notebook in `panel`. */
export class LiveNotebookPort
  extends ContentsFilesPort
  implements INotebookPort
{
  // Its files are the engine's, over the contents API (ContentsFilesPort).
  // `lastRun`: the panel's run log (./run-log.ts), where its own runs go too.
  constructor(
    panel: NotebookPanel,
    contents: Contents.IManager,
    private readonly _lastRun: LastRunSources
  ) {
    super(contents);
    this._live = new LivePanel(panel);
    panel.disposed.connect(this._onDisposed, this);
    this._undo = new LiveUndoGroup(panel);
  }

  get path(): string {
    return this._live.path;
  }

  /**
   * A cell starts to run for the agent (its id), the kernel not asked yet:
   * the host tells the session, whose card of the call then names the cell
   * and which saves the notebook with it (a reload mid-cell keeps it).
   */
  get cellStarting(): ISignal<this, string> {
    return this._cellStarting;
  }

  async getCells(): Promise<ICellSnapshot[]> {
    const model = this._live.model();
    const cells: ICellSnapshot[] = [];
    for (let i = 0; i < model.cells.length; i++) {
      const cell = model.cells.get(i);
      const code = cell.type === 'code' ? (cell as ICodeCellModel) : null;
      cells.push({
        id: cell.id,
        type:
          cell.type === 'code' || cell.type === 'markdown' ? cell.type : 'raw',
        source: cell.sharedModel.getSource(),
        executionCount: code?.executionCount ?? null,
        outputs: code ? parseOutputs(code.outputs.toJSON()) : [],
        lastRunSource: this._lastRun.get(cell.id) ?? null
      });
    }
    return cells;
  }

  async insertCell(options: IInsertOptions): Promise<ICellSnapshot> {
    const model = this._live.model();
    const index =
      options.afterCellId !== undefined
        ? this._live.indexOf(options.afterCellId) + 1
        : model.cells.length;
    const shared = model.sharedModel.insertCell(index, {
      cell_type: options.type,
      source: options.source,
      metadata: {}
    });
    return {
      id: shared.getId(),
      type: options.type,
      source: options.source,
      executionCount: null,
      outputs: []
    };
  }

  async editCell(cellId: string, source: string): Promise<ICellSnapshot> {
    const model = this._live.model();
    const cell = model.cells.get(this._live.indexOf(cellId));
    // Inside the notebook's transaction, the edit joins the notebook-level
    // undo history even when each cell has its own undo manager.
    model.sharedModel.transact(() => cell.sharedModel.setSource(source));
    return (await this.getCells()).find(c => c.id === cellId)!;
  }

  async deleteCell(cellId: string): Promise<void> {
    const model = this._live.model();
    // The cell being typed in goes (Generate's empty first cell): leave edit
    // mode, or the cell that becomes active, the Markdown title, shows as its
    // source (seen in the walk).
    const notebook = this._live.panel.content;
    if (notebook.mode === 'edit' && notebook.activeCell?.model.id === cellId) {
      notebook.mode = 'command';
    }
    model.sharedModel.deleteCell(this._live.indexOf(cellId));
  }

  async restoreOutputs(
    cellId: string,
    outputs: ReadonlyArray<CellOutput>,
    executionCount: number | null
  ): Promise<void> {
    const cell = this._live.model().cells.get(this._live.indexOf(cellId));
    if (cell.type !== 'code' || this._runs.runningCells().includes(cellId)) {
      throw outputsNotRestored(cellId, cell.type);
    }
    restoreCellOutputs(cell as ICodeCellModel, outputs, executionCount);
  }

  async runCell(
    cellId: string,
    options: IRunOptions = {}
  ): Promise<IRunResult> {
    const cell = this._live.panel.content.widgets[this._live.indexOf(cellId)];
    if (!(cell instanceof CodeCell)) {
      throw notCodeCell(cellId, cell.model.type);
    }
    this._runs.assertNotRunning(cellId);
    const kernel = await this._live.kernel();
    if (options.signal?.aborted) {
      return { cellId, status: 'aborted', executionCount: null, outputs: [] };
    }
    this._undo.beforeRun(cell.model);
    this._lastRun.set(cellId, cell.model.sharedModel.getSource());
    this._cellStarting.emit(cellId);
    const sessionContext = this._live.panel.sessionContext;
    const future = executeLikeShiftEnter(cell, sessionContext, kernel);
    if (!future) {
      // A blank cell: nothing was sent, as with Shift+Enter.
      return { cellId, status: 'ok', executionCount: null, outputs: [] };
    }
    const execution = WatchedExecution.observe({
      ...this._executionOptions(kernel, cellId),
      future,
      onCutStream: output => writeCutStream(cell, output)
    });
    return this._watch(execution, options);
  }

  async waitForCell(
    cellId: string,
    options: IRunOptions = {}
  ): Promise<IRunResult> {
    this._live.model();
    return this._watch(this._runs.runOf(cellId), options);
  }

  async executeCode(
    code: string,
    options: IRunOptions & { silent?: boolean } = {}
  ): Promise<IRunResult> {
    const kernel = await this._live.kernel();
    if (options.signal?.aborted) {
      return {
        cellId: null,
        status: 'aborted',
        executionCount: null,
        outputs: []
      };
    }
    let execution: WatchedExecution;
    try {
      execution = WatchedExecution.send({
        ...this._executionOptions(kernel, null),
        code,
        silent: options.silent,
        storeHistory: false
      });
    } catch (error) {
      throw new NotebookPortError(
        `The kernel of ${this.path} cannot run code now ` +
          `(${(error as Error).message}; state: ${this.kernelState()}). ` +
          'Restart the kernel, then run the cells again.'
      );
    }
    return this._watch(execution, options);
  }

  async interrupt(options: IInterruptOptions = {}): Promise<void> {
    this._runs.stopAll(options.userStop ?? false);
    const kernel = this._live.currentKernel;
    await kernel?.interrupt().catch(error => {
      if (!options.userStop) {
        throw error;
      }
    });
    if (options.userStop) {
      await this._runs.settled();
    }
  }

  runningCells(): string[] {
    return this._runs.runningCells();
  }

  async restartKernel(): Promise<void> {
    const kernel = await this._live.kernel();
    // A busy kernel cannot agree to shut down: the graceful restart would
    // only wait for it (../../kernel/no-wait-restart.ts).
    await Private.restart(kernel, kernel.status === 'busy');
  }

  kernelState(): KernelState {
    const kernel = this._live.currentKernel;
    if (!kernel) {
      return 'none';
    }
    // A restarted kernel shows `unknown` until asked (kernel-probes.ts).
    nudgeIfSilent(kernel);
    return toKernelState(kernel.status);
  }

  beginUndoGroup(): void {
    this._undo.begin();
  }

  endUndoGroup(): void {
    this._undo.end();
  }

  /** What every execution of this port needs from it. */
  private _executionOptions(
    kernel: Kernel.IKernelConnection,
    cellId: string | null
  ): WatchedExecution.IOptions {
    this._runKernel = kernel;
    return {
      kernel,
      cellId,
      interrupt: () => kernel.interrupt(),
      // After the user's Stop was ignored (only while the panel is open).
      restart: () =>
        this._live.closed ? Promise.resolve() : Private.restart(kernel, true)
    };
  }

  /** Track and watch `execution`; refuse once the notebook was closed. */
  private async _watch(
    execution: WatchedExecution,
    options: IRunOptions
  ): Promise<IRunResult> {
    this._runs.add(execution);
    const result = await execution.watch(options);
    this._live.model();
    return result;
  }

  /**
   * The panel closed: stop the agent's code still running (the agent
   * started it, and nobody is left to watch it). The kernel connection is
   * closing too, so the interrupt goes by REST.
   */
  private _onDisposed(): void {
    const kernel = this._runKernel;
    const interrupt = !!kernel && this._runs.busy;
    this._live.close(interrupt);
    if (kernel && interrupt) {
      void KernelAPI.interruptKernel(kernel.id, kernel.serverSettings).catch(
        () => undefined
      );
    }
    this._runs.abandonAll();
    this._runKernel = null;
  }

  private readonly _live: LivePanel;
  private readonly _cellStarting = new Signal<this, string>(this);
  private readonly _runs = new RunTracker();
  private readonly _undo: LiveUndoGroup;
  private _runKernel: Kernel.IKernelConnection | null = null;
}

/** The request a cell run sent. */
type CellFuture = Kernel.IShellFuture<
  KernelMessage.IExecuteRequestMsg,
  KernelMessage.IExecuteReplyMsg
>;

/**
 * Run `cell` with `CodeCell.execute` on `kernel` (the session's), with
 * stdin disabled for the request it sends: a cell calling input() then
 * fails at once instead of waiting for a reply nobody will type. Returns
 * the request, or null when the cell sent none (its source is blank).
 */
function executeLikeShiftEnter(
  cell: CodeCell,
  sessionContext: ISessionContext,
  kernel: Kernel.IKernelConnection
): CellFuture | null {
  let future: CellFuture | null = null;
  const original = kernel.requestExecute;
  // CodeCell.execute sends its one request synchronously.
  kernel.requestExecute = (content, disposeOnDone, metadata) => {
    future = original.call(
      kernel,
      { ...content, allow_stdin: false },
      disposeOnDone,
      metadata
    );
    return future;
  };
  try {
    // Its promise rejects when the kernel restarts under it: the engine's
    // watch reports that.
    void CodeCell.execute(cell, sessionContext).catch(() => undefined);
  } finally {
    kernel.requestExecute = original;
  }
  if (future) {
    untrustOutputs(cell.model);
  }
  return future;
}

namespace Private {
  /** How long a restarted kernel may take to answer. */
  const RESTART_ANSWER_MS = 60000;

  /**
   * Restart `kernel` and wait (bounded) until it shows idle again; `noWait`
   * for a kernel that cannot agree to shut down (busy, or after the user's
   * ignored Stop).
   */
  export async function restart(
    kernel: Kernel.IKernelConnection,
    noWait = false
  ): Promise<void> {
    if (noWait) {
      await skipShutdownWait(kernel.id, kernel.serverSettings);
    }
    await kernel.restart();
    await until(() => {
      nudgeIfSilent(kernel);
      return kernel.isDisposed || kernel.status === 'idle';
    }, Date.now() + RESTART_ANSWER_MS);
  }
}
