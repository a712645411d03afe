/**
 * An in-memory INotebookPort for unit tests of the loop and tools.
 *
 * It has no kernel: running code asks `execute`, a function the test
 * supplies, for the outputs (it may be slow, or throw when aborted, to
 * exercise watched runs). Integration and UI tests use a real kernel.
 */
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
} from '../ports';

/** Decides what running some code outputs. */
export type FakeExecutor = (
  source: string,
  signal: AbortSignal
) => Promise<CellOutput[]> | CellOutput[];

interface IFlight {
  done: Promise<void>;
  controller: AbortController;
  started: number;
  result: IRunResult;
  finished: boolean;
}

/** An in-memory notebook. */
export class FakeNotebook implements INotebookPort {
  readonly path: string;
  readonly cells: ICellSnapshot[] = [];
  /** Text files by path, for listFiles/readFile. */
  readonly files = new Map<string, string>();
  interrupts = 0;
  restarts = 0;
  /** Calls of begin/endUndoGroup, in order. */
  readonly undoGroups: Array<'begin' | 'end'> = [];
  state: KernelState = 'idle';
  private _count = 0;
  private _nextId = 0;
  private _flights = new Map<string, IFlight>();
  private _execute: FakeExecutor;

  constructor(
    options: {
      path?: string;
      cells?: Array<Partial<ICellSnapshot>>;
      execute?: FakeExecutor;
      files?: Record<string, string>;
    } = {}
  ) {
    this.path = options.path ?? 'test.ipynb';
    for (const cell of options.cells ?? []) {
      this.cells.push({
        id: cell.id ?? this._newId(),
        type: cell.type ?? 'code',
        source: cell.source ?? '',
        executionCount: cell.executionCount ?? null,
        outputs: cell.outputs ?? [],
        lastRunSource:
          cell.lastRunSource ??
          (cell.executionCount !== undefined ? (cell.source ?? '') : null)
      });
    }
    for (const [path, text] of Object.entries(options.files ?? {})) {
      this.files.set(path, text);
    }
    this._execute = options.execute ?? (() => []);
  }

  async getCells(): Promise<ICellSnapshot[]> {
    return this.cells.map(cell => ({ ...cell, outputs: [...cell.outputs] }));
  }

  async insertCell(options: IInsertOptions): Promise<ICellSnapshot> {
    let index = this.cells.length;
    if (options.afterCellId !== undefined) {
      index = this._index(options.afterCellId) + 1;
    }
    const cell: ICellSnapshot = {
      id: this._newId(),
      type: options.type,
      source: options.source,
      executionCount: null,
      outputs: [],
      lastRunSource: null
    };
    this.cells.splice(index, 0, cell);
    return { ...cell };
  }

  async editCell(cellId: string, source: string): Promise<ICellSnapshot> {
    const cell = this.cells[this._index(cellId)];
    cell.source = source;
    return { ...cell, outputs: [...cell.outputs] };
  }

  async deleteCell(cellId: string): Promise<void> {
    this.cells.splice(this._index(cellId), 1);
  }

  async runCell(
    cellId: string,
    options: IRunOptions = {}
  ): Promise<IRunResult> {
    const cell = this.cells[this._index(cellId)];
    if (cell.type !== 'code') {
      throw new NotebookPortError(
        `Cell ${cellId} is a ${cell.type} cell; only code cells run.`
      );
    }
    this._count += 1;
    cell.executionCount = this._count;
    cell.lastRunSource = cell.source;
    cell.outputs = [];
    const flight = this._start(
      cellId,
      cell.source,
      cell.executionCount,
      outputs => {
        cell.outputs = outputs;
      }
    );
    return this._watch(flight, options);
  }

  async waitForCell(
    cellId: string,
    options: IRunOptions = {}
  ): Promise<IRunResult> {
    const flight = this._flights.get(cellId);
    if (!flight) {
      throw new NotebookPortError(`Cell ${cellId} is not running.`);
    }
    return this._watch(flight, options);
  }

  async executeCode(
    code: string,
    options: IRunOptions & { silent?: boolean } = {}
  ): Promise<IRunResult> {
    const flight = this._start(null, code, null, () => undefined);
    return this._watch(flight, options);
  }

  async interrupt(): Promise<void> {
    this.interrupts += 1;
    for (const flight of this._flights.values()) {
      flight.controller.abort();
    }
  }

  runningCells(): string[] {
    return [...this._flights.keys()];
  }

  async restartKernel(): Promise<void> {
    this.restarts += 1;
    for (const flight of this._flights.values()) {
      flight.result.status = 'kernel-died';
      flight.controller.abort();
    }
  }

  kernelState(): KernelState {
    return this.state;
  }

  async listFiles(path: string): Promise<IFileEntry[]> {
    const prefix = path ? `${path.replace(/\/$/, '')}/` : '';
    return [...this.files.keys()]
      .filter(p => p.startsWith(prefix))
      .map(p => ({
        path: p,
        type: 'file' as const,
        size: this.files.get(p)!.length
      }));
  }

  async readFile(path: string): Promise<string> {
    const text = this.files.get(path);
    if (text === undefined) {
      throw new NotebookPortError(`There is no file ${path}.`);
    }
    return text;
  }

  beginUndoGroup(): void {
    this.undoGroups.push('begin');
  }

  endUndoGroup(): void {
    this.undoGroups.push('end');
  }

  private _start(
    cellId: string | null,
    source: string,
    executionCount: number | null,
    store: (outputs: CellOutput[]) => void
  ): IFlight {
    const controller = new AbortController();
    const result: IRunResult = {
      cellId,
      status: 'running',
      executionCount,
      outputs: []
    };
    const flight: IFlight = {
      controller,
      started: Date.now(),
      result,
      finished: false,
      done: Promise.resolve()
    };
    this.state = 'busy';
    flight.done = (async () => {
      try {
        result.outputs = await this._execute(source, controller.signal);
        result.status = result.outputs.some(o => o.type === 'error')
          ? 'error'
          : 'ok';
      } catch (error) {
        if (!controller.signal.aborted) {
          throw error;
        }
        if (result.status === 'running') {
          result.status = 'aborted';
        }
      } finally {
        flight.finished = true;
        store(result.outputs);
        if (cellId) {
          this._flights.delete(cellId);
        }
        this.state = 'idle';
      }
    })();
    if (cellId) {
      this._flights.set(cellId, flight);
    }
    return flight;
  }

  private async _watch(
    flight: IFlight,
    options: IRunOptions
  ): Promise<IRunResult> {
    const { signal, softTimeoutMs, hardTimeoutMs } = options;
    const timers: Array<ReturnType<typeof setTimeout>> = [];
    const onAbort = () => void this.interrupt();
    signal?.addEventListener('abort', onAbort);
    if (signal?.aborted) {
      onAbort();
    }
    try {
      const soft = new Promise<'soft'>(resolve => {
        if (softTimeoutMs !== undefined) {
          timers.push(setTimeout(() => resolve('soft'), softTimeoutMs));
        }
      });
      if (hardTimeoutMs !== undefined) {
        const left = hardTimeoutMs - (Date.now() - flight.started);
        timers.push(
          setTimeout(
            () => {
              flight.result.status = 'timeout';
              void this.interrupt();
            },
            Math.max(0, left)
          )
        );
      }
      const outcome = await Promise.race([
        flight.done.then(() => 'done' as const),
        soft
      ]);
      const result = { ...flight.result, outputs: [...flight.result.outputs] };
      result.elapsedMs = Date.now() - flight.started;
      if (outcome === 'soft' && !flight.finished) {
        result.status = 'running';
      }
      return result;
    } finally {
      timers.forEach(clearTimeout);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  private _index(cellId: string): number {
    const index = this.cells.findIndex(c => c.id === cellId);
    if (index < 0) {
      throw new NotebookPortError(
        `There is no cell with id ${cellId}. Call read_notebook to see the current cell ids.`
      );
    }
    return index;
  }

  private _newId(): string {
    this._nextId += 1;
    return `cell-${this._nextId}`;
  }
}
