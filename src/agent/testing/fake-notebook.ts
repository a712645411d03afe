/**
 * An in-memory INotebookPort for unit tests of the loop and tools.
 *
 * It has no kernel: running code asks `execute`, a function the test
 * supplies, for the outputs (it may be slow, stream partial output, or
 * throw when aborted, to exercise watched runs; ./fake-runs.ts). It passes
 * the port contract suite (./port-contract/) except where a case needs a
 * real kernel, which that suite says. Integration and UI tests use a real
 * kernel.
 */
import {
  FileTooLargeError,
  MAX_READ_BYTES,
  NotebookPortError,
  type CellOutput,
  type ICellSnapshot,
  type IFileEntry,
  type IInsertOptions,
  type IInterruptOptions,
  type INotebookPort,
  type IRunOptions,
  type IRunResult,
  type KernelState
} from '../ports';
import { notCodeCell, nothingAt, outputsNotRestored } from '../port-refusals';
import { FakeRuns, type FakeExecutor } from './fake-runs';
import { noSuchCell } from '../port-refusals';

export type { FakeExecutor } from './fake-runs';

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
  private readonly _runs: FakeRuns;

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
    this._runs = new FakeRuns(
      options.execute ?? (() => []),
      () => void this.interrupt(),
      busy => (this.state = busy ? 'busy' : 'idle')
    );
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

  async restoreOutputs(
    cellId: string,
    outputs: ReadonlyArray<CellOutput>,
    executionCount: number | null
  ): Promise<void> {
    const cell = this.cells[this._index(cellId)];
    if (cell.type !== 'code' || this.runningCells().includes(cellId)) {
      throw outputsNotRestored(cellId, cell.type);
    }
    cell.outputs = [...outputs];
    cell.executionCount = executionCount;
  }

  async runCell(
    cellId: string,
    options: IRunOptions = {}
  ): Promise<IRunResult> {
    const cell = this.cells[this._index(cellId)];
    if (cell.type !== 'code') {
      throw notCodeCell(cellId, cell.type);
    }
    const flight = this._runs.start(
      cellId,
      cell.source,
      this._count + 1,
      outputs => {
        cell.outputs = outputs;
      }
    );
    this._count += 1;
    cell.executionCount = this._count;
    cell.lastRunSource = cell.source;
    cell.outputs = [];
    return this._runs.watch(flight, options);
  }

  async waitForCell(
    cellId: string,
    options: IRunOptions = {}
  ): Promise<IRunResult> {
    return this._runs.watch(this._runs.lastRun(cellId), options);
  }

  async executeCode(
    code: string,
    options: IRunOptions & { silent?: boolean } = {}
  ): Promise<IRunResult> {
    const flight = this._runs.start(null, code, null, () => undefined);
    return this._runs.watch(flight, options);
  }

  async interrupt(options: IInterruptOptions = {}): Promise<void> {
    this.interrupts += 1;
    this._runs.stopAll('aborted');
    if (options.userStop) {
      await this._runs.settled();
    }
  }

  runningCells(): string[] {
    return this._runs.runningCells();
  }

  async restartKernel(): Promise<void> {
    this.restarts += 1;
    this._runs.stopAll('kernel-died');
    await this._runs.settled();
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
      throw nothingAt(path, 'file');
    }
    if (text.length > MAX_READ_BYTES) {
      throw new FileTooLargeError(path, text.length);
    }
    return text;
  }
  async writeFile(path: string, text: string): Promise<void> {
    this.files.set(path, text);
  }

  async deleteFile(path: string): Promise<void> {
    if (!this.files.delete(path)) {
      throw new NotebookPortError(`There is no file "${path}" to delete.`);
    }
  }

  beginUndoGroup(): void {
    this.undoGroups.push('begin');
  }

  endUndoGroup(): void {
    this.undoGroups.push('end');
  }

  private _index(cellId: string): number {
    const index = this.cells.findIndex(c => c.id === cellId);
    if (index < 0) {
      throw noSuchCell(cellId);
    }
    return index;
  }

  private _newId(): string {
    this._nextId += 1;
    return `cell-${this._nextId}`;
  }
}
