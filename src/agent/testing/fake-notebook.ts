/**
 * An in-memory INotebookPort for unit tests of the loop and tools.
 *
 * It has no kernel: running a cell asks `execute`, a function the test
 * supplies, for the outputs. Integration and UI tests use a real kernel.
 */
import {
  NotebookPortError,
  type CellOutput,
  type ICellSnapshot,
  type IInsertOptions,
  type INotebookPort,
  type IRunResult
} from '../ports';

/** Decides what running a cell outputs. */
export type FakeExecutor = (
  source: string,
  signal?: AbortSignal
) => Promise<CellOutput[]> | CellOutput[];

/** An in-memory notebook. */
export class FakeNotebook implements INotebookPort {
  readonly path: string;
  readonly cells: ICellSnapshot[] = [];
  interrupts = 0;
  private _count = 0;
  private _nextId = 0;

  constructor(
    options: {
      path?: string;
      cells?: Array<Partial<ICellSnapshot>>;
      execute?: FakeExecutor;
    } = {}
  ) {
    this.path = options.path ?? 'test.ipynb';
    for (const cell of options.cells ?? []) {
      this.cells.push({
        id: cell.id ?? this._newId(),
        type: cell.type ?? 'code',
        source: cell.source ?? '',
        executionCount: cell.executionCount ?? null,
        outputs: cell.outputs ?? []
      });
    }
    this._execute = options.execute ?? (() => []);
  }

  async getCells(): Promise<ICellSnapshot[]> {
    return this.cells.map(cell => ({ ...cell, outputs: [...cell.outputs] }));
  }

  async insertCell(options: IInsertOptions): Promise<ICellSnapshot> {
    let index = this.cells.length;
    if (options.afterCellId !== undefined) {
      const after = this.cells.findIndex(c => c.id === options.afterCellId);
      if (after < 0) {
        throw new NotebookPortError(
          `There is no cell with id ${options.afterCellId}.`
        );
      }
      index = after + 1;
    }
    const cell: ICellSnapshot = {
      id: this._newId(),
      type: options.type,
      source: options.source,
      executionCount: null,
      outputs: []
    };
    this.cells.splice(index, 0, cell);
    return { ...cell };
  }

  async runCell(cellId: string, signal?: AbortSignal): Promise<IRunResult> {
    const cell = this.cells.find(c => c.id === cellId);
    if (!cell) {
      throw new NotebookPortError(`There is no cell with id ${cellId}.`);
    }
    if (cell.type !== 'code') {
      throw new NotebookPortError(
        `Cell ${cellId} is a ${cell.type} cell; only code cells run.`
      );
    }
    this._count += 1;
    cell.executionCount = this._count;
    try {
      cell.outputs = await this._execute(cell.source, signal);
    } catch (error) {
      if (signal?.aborted) {
        this.interrupts += 1;
        return {
          cellId,
          status: 'aborted',
          executionCount: cell.executionCount,
          outputs: cell.outputs
        };
      }
      throw error;
    }
    const status = cell.outputs.some(o => o.type === 'error') ? 'error' : 'ok';
    return {
      cellId,
      status,
      executionCount: cell.executionCount,
      outputs: [...cell.outputs]
    };
  }

  async interrupt(): Promise<void> {
    this.interrupts += 1;
  }

  private _execute: FakeExecutor;

  private _newId(): string {
    this._nextId += 1;
    return `cell-${this._nextId}`;
  }
}
