/**
 * The cells of a notebook in memory, addressed by id: what a
 * ServerNotebookPort edits between loading and saving the file.
 */
import {
  type CellOutput,
  type ICellSnapshot,
  type IInsertOptions
} from '../../agent/ports';
import {
  cellSnapshot,
  newCellId,
  type INotebookDocument,
  type IServerCell
} from './notebook-file';
import { noSuchCell } from '../../agent/port-refusals';

/** Id-addressed cell operations on a notebook document. */
export class CellStore {
  /** `path` names the notebook in error messages; `newId` makes inserted cells' ids. */
  constructor(
    readonly doc: INotebookDocument,
    private readonly _path: string,
    private readonly _newId: () => string = newCellId
  ) {}

  /** Snapshots of every cell, in order. */
  snapshots(): ICellSnapshot[] {
    return this.doc.cells.map(cellSnapshot);
  }

  /** The live cell (not a copy); throws a NotebookPortError when unknown. */
  get(cellId: string): IServerCell {
    return this.doc.cells[this._index(cellId)];
  }

  /** Insert a cell after `afterCellId`, or at the end. */
  insert(options: IInsertOptions): ICellSnapshot {
    let index = this.doc.cells.length;
    if (options.afterCellId !== undefined) {
      index = this._index(options.afterCellId) + 1;
    }
    const cell: IServerCell = {
      id: this._newId(),
      type: options.type,
      source: options.source,
      executionCount: null,
      outputs: [],
      lastRunSource: null,
      metadata: {}
    };
    this.doc.cells.splice(index, 0, cell);
    return cellSnapshot(cell);
  }

  /** Replace a cell's source; outputs and lastRunSource stay (stale). */
  edit(cellId: string, source: string): ICellSnapshot {
    const cell = this.get(cellId);
    cell.source = source;
    return cellSnapshot(cell);
  }

  /** Put back a code cell's outputs and execution count; the source stays. */
  restoreOutputs(
    cellId: string,
    outputs: ReadonlyArray<CellOutput>,
    executionCount: number | null
  ): void {
    const cell = this.get(cellId);
    cell.outputs = [...outputs];
    cell.executionCount = executionCount;
  }

  /** Remove a cell. */
  delete(cellId: string): void {
    this.doc.cells.splice(this._index(cellId), 1);
  }

  private _index(cellId: string): number {
    const index = this.doc.cells.findIndex(c => c.id === cellId);
    if (index < 0) {
      throw noSuchCell(cellId, this._path);
    }
    return index;
  }
}
