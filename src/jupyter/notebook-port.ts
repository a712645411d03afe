/**
 * INotebookPort over a live JupyterLab notebook and its kernel.
 *
 * Cells are changed through the shared notebook model (so the change is
 * collaborative, undoable and rendered at once) and run with
 * `CodeCell.execute`, the core of what Shift+Enter does, so outputs and
 * execution counts render in the notebook as if the user ran the cell. The
 * port holds on to its panel: the agent keeps working on the notebook it
 * started in, even when the user switches tabs.
 */
import { CodeCell, type ICodeCellModel } from '@jupyterlab/cells';
import type * as nbformat from '@jupyterlab/nbformat';
import { NotebookActions, type NotebookPanel } from '@jupyterlab/notebook';
import type { Contents, Kernel, KernelMessage } from '@jupyterlab/services';
import {
  NotebookPortError,
  type CellOutput,
  type ICellSnapshot,
  type IFileEntry,
  type IInsertOptions,
  type INotebookPort,
  type IRunOptions,
  type IRunResult,
  type KernelState
} from '../agent/ports';
import { startFlight, watchFlight, type IFlight } from './live-execution';
import {
  OutputUndo,
  restoreCellOutputs,
  type IUndoStackLike
} from './output-undo';
import { toCellOutputs } from './outputs';
import {
  assertInsideRoot,
  withoutHiddenEntries
} from '../server-api/path-check';

/** Y.UndoManager's merge window while a run's edits are grouped: a day. */
const GROUP_CAPTURE_MS = 24 * 3600 * 1000;

/** The part of Y.UndoManager we use (YNotebook has one; ISharedNotebook does not declare it). */
interface IUndoManagerLike extends IUndoStackLike {
  captureTimeout: number;
  stopCapturing(): void;
}

/** The live notebook in `panel`. */
export class LiveNotebookPort implements INotebookPort {
  private _lastRun = new Map<string, string>();
  private _flights = new Map<string, IFlight>();
  private _savedCapture: number | null = null;
  private _outputUndo = new OutputUndo(() =>
    this._panel.isDisposed ? null : this._panel.content.model
  );

  constructor(
    private readonly _panel: NotebookPanel,
    private readonly _contents: Contents.IManager
  ) {
    // Remember what each cell held when it last ran, whoever ran it.
    NotebookActions.executionScheduled.connect((_, { notebook, cell }) => {
      if (notebook === this._panel.content) {
        this._lastRun.set(cell.model.id, cell.model.sharedModel.getSource());
      }
    });
  }

  get path(): string {
    return this._panel.context.path;
  }

  async getCells(): Promise<ICellSnapshot[]> {
    const model = this._model();
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
        outputs: code ? toCellOutputs(code.outputs.toJSON()) : [],
        lastRunSource: this._lastRun.get(cell.id) ?? null
      });
    }
    return cells;
  }

  async insertCell(options: IInsertOptions): Promise<ICellSnapshot> {
    const model = this._model();
    const index =
      options.afterCellId !== undefined
        ? this._indexOf(options.afterCellId) + 1
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
    const model = this._model();
    const cell = model.cells.get(this._indexOf(cellId));
    // Inside the notebook's transaction, the edit joins the notebook-level
    // undo history even when each cell has its own undo manager.
    model.sharedModel.transact(() => cell.sharedModel.setSource(source));
    return (await this.getCells()).find(c => c.id === cellId)!;
  }

  async deleteCell(cellId: string): Promise<void> {
    const model = this._model();
    model.sharedModel.deleteCell(this._indexOf(cellId));
  }

  async restoreOutputs(
    cellId: string,
    outputs: ReadonlyArray<CellOutput>,
    executionCount: number | null
  ): Promise<void> {
    const cell = this._model().cells.get(this._indexOf(cellId));
    if (cell.type !== 'code' || this._flights.has(cellId)) {
      throw new NotebookPortError(
        `Cell ${cellId} is ${cell.type === 'code' ? 'running' : `a ${cell.type} cell`}: its outputs were not restored.`
      );
    }
    restoreCellOutputs(cell as ICodeCellModel, outputs, executionCount);
  }

  async runCell(
    cellId: string,
    options: IRunOptions = {}
  ): Promise<IRunResult> {
    const cell = this._panel.content.widgets[this._indexOf(cellId)];
    if (!(cell instanceof CodeCell)) {
      throw new NotebookPortError(
        `Cell ${cellId} is a ${cell.model.type} cell; only code cells can run.`
      );
    }
    const kernel = await this._kernel();
    this._outputUndo.beforeRun(cell.model);
    this._lastRun.set(cellId, cell.model.sharedModel.getSource());
    const reply = this._withoutStdin(kernel, () =>
      CodeCell.execute(cell, this._panel.sessionContext)
    );
    Private.untrustOutputs(cell.model);
    const flight = startFlight(
      kernel,
      {
        cellId,
        outputs: () => toCellOutputs(cell.model.outputs.toJSON()),
        executionCount: () => cell.model.executionCount ?? null
      },
      reply
    );
    this._flights.set(cellId, flight);
    void flight.done.then(
      () => this._flights.get(cellId) === flight && this._flights.delete(cellId)
    );
    return watchFlight(flight, options, () => this.interrupt());
  }

  async waitForCell(
    cellId: string,
    options: IRunOptions = {}
  ): Promise<IRunResult> {
    const flight = this._flights.get(cellId);
    if (!flight) {
      const cell = (await this.getCells()).find(c => c.id === cellId);
      if (!cell) {
        throw new NotebookPortError(`There is no cell with id ${cellId}.`);
      }
      const status = cell.outputs.some(o => o.type === 'error')
        ? 'error'
        : 'ok';
      return {
        cellId,
        status,
        executionCount: cell.executionCount,
        outputs: cell.outputs,
        elapsedMs: 0
      };
    }
    return watchFlight(flight, options, () => this.interrupt());
  }

  async executeCode(
    code: string,
    options: IRunOptions & { silent?: boolean } = {}
  ): Promise<IRunResult> {
    const kernel = await this._kernel();
    const outputs: CellOutput[] = [];
    let count: number | null = null;
    const future = kernel.requestExecute({
      code,
      silent: options.silent ?? false,
      store_history: false,
      allow_stdin: false,
      stop_on_error: true
    });
    future.onIOPub = (msg: KernelMessage.IIOPubMessage) => {
      const type = msg.header.msg_type;
      if (
        type === 'stream' ||
        type === 'execute_result' ||
        type === 'display_data' ||
        type === 'error'
      ) {
        outputs.push(
          ...toCellOutputs([
            {
              ...(msg.content as object),
              output_type: type
            } as nbformat.IOutput
          ])
        );
      }
    };
    const done = future.done.then(reply => {
      count =
        (reply?.content as { execution_count?: number })?.execution_count ??
        null;
    });
    const flight = startFlight(
      kernel,
      {
        cellId: null,
        outputs: () => [...outputs],
        executionCount: () => count
      },
      done
    );
    return watchFlight(flight, options, () => this.interrupt());
  }

  async interrupt(): Promise<void> {
    await this._panel.sessionContext.session?.kernel?.interrupt();
  }

  async restartKernel(): Promise<void> {
    const kernel = await this._kernel();
    await kernel.restart();
  }

  kernelState(): KernelState {
    const kernel = this._panel.sessionContext.session?.kernel;
    if (!kernel) {
      return 'none';
    }
    const status = kernel.status;
    if (status === 'autorestarting') {
      return 'restarting';
    }
    return (
      ['idle', 'busy', 'starting', 'restarting', 'dead'] as string[]
    ).includes(status)
      ? (status as KernelState)
      : 'unknown';
  }

  async listFiles(path: string): Promise<IFileEntry[]> {
    await assertInsideRoot(this._contents.serverSettings, path);
    const listing = await this._contents.get(path, { content: true });
    if (listing.type !== 'directory') {
      throw new NotebookPortError(`${path} is a file, not a directory.`);
    }
    const entries = (listing.content as Contents.IModel[]).map(
      (item): IFileEntry => ({
        path: item.path,
        type:
          item.type === 'directory'
            ? 'directory'
            : item.type === 'notebook'
              ? 'notebook'
              : 'file',
        size: item.size ?? null
      })
    );
    return withoutHiddenEntries(this._contents.serverSettings, path, entries);
  }

  async readFile(path: string): Promise<string> {
    await assertInsideRoot(this._contents.serverSettings, path);
    let file: Contents.IModel;
    try {
      file = await this._contents.get(path, {
        content: true,
        type: 'file',
        format: 'text'
      });
    } catch (error) {
      throw new NotebookPortError(
        `Could not read ${path}: ${(error as Error).message}`
      );
    }
    return String(file.content ?? '');
  }

  beginUndoGroup(): void {
    const undo = this._undoManager();
    if (undo && this._savedCapture === null) {
      undo.stopCapturing();
      this._savedCapture = undo.captureTimeout;
      undo.captureTimeout = GROUP_CAPTURE_MS;
      this._outputUndo.begin(undo);
    }
  }

  endUndoGroup(): void {
    const undo = this._undoManager();
    if (undo && this._savedCapture !== null) {
      undo.stopCapturing();
      undo.captureTimeout = this._savedCapture;
      this._outputUndo.end(undo);
    }
    this._savedCapture = null;
  }

  /**
   * Run `execute` with stdin disabled for the kernel request it makes
   * synchronously (CodeCell.execute does): a cell calling input() then
   * fails at once instead of waiting for a reply nobody will type.
   */
  private _withoutStdin<T>(
    kernel: Kernel.IKernelConnection,
    execute: () => T
  ): T {
    const original = kernel.requestExecute;
    kernel.requestExecute = (content, disposeOnDone, metadata) =>
      original.call(
        kernel,
        { ...content, allow_stdin: false },
        disposeOnDone,
        metadata
      );
    try {
      return execute();
    } finally {
      kernel.requestExecute = original;
    }
  }

  private _undoManager(): IUndoManagerLike | null {
    const shared = this._panel.content.model?.sharedModel as unknown as {
      undoManager?: IUndoManagerLike;
    };
    return shared?.undoManager ?? null;
  }

  private async _kernel(): Promise<Kernel.IKernelConnection> {
    this._model();
    const sessionContext = this._panel.sessionContext;
    await sessionContext.ready;
    const kernel = sessionContext.session?.kernel;
    if (!kernel) {
      throw new NotebookPortError(
        `${this.path} has no kernel. Ask the user to select one (Kernel > Change Kernel…).`
      );
    }
    return kernel;
  }

  private _model() {
    const model = this._panel.isDisposed ? null : this._panel.content.model;
    if (!model) {
      throw new NotebookPortError(
        `The notebook ${this.path} was closed, so the agent stopped working on it. Nothing else was changed.`
      );
    }
    return model;
  }

  private _indexOf(cellId: string): number {
    const model = this._model();
    for (let i = 0; i < model.cells.length; i++) {
      if (model.cells.get(i).id === cellId) {
        return i;
      }
    }
    throw new NotebookPortError(
      `There is no cell with id ${cellId} in ${this.path} (it may have been deleted). ` +
        'Call read_notebook to see the current cell ids.'
    );
  }
}

namespace Private {
  /**
   * Render what the agent's run of a cell outputs as untrusted content, as
   * for a notebook from someone else: `CodeCell.execute` trusts the outputs
   * of a cell the user runs, but the agent's code and the data it displays
   * are steered by model output, and trusted HTML or JavaScript runs in
   * JupyterLab's origin (which drives the user's kernels and the agent's own
   * approvals). Called right after `CodeCell.execute` has set the trust and
   * before any output arrives; the cell's `trusted` metadata goes too, so a
   * save does not sign the notebook as trusted. Running the cell yourself
   * trusts it again.
   */
  export function untrustOutputs(model: ICodeCellModel): void {
    model.trusted = false;
    // The origin keeps the change out of the cell's `changed` signal, as
    // `CodeCell.execute` does; JupyterLab 4.0's `transact` takes no origin
    // (it is ignored there), hence its type from 4.1 on.
    (model.sharedModel as { transact: TransactWithOrigin }).transact(
      () => model.deleteMetadata('trusted'),
      false,
      'silent-change'
    );
  }

  /** `ISharedBase.transact` as JupyterLab 4.1+ declares it. */
  type TransactWithOrigin = (
    f: () => void,
    undoable: boolean,
    origin: string
  ) => void;
}
