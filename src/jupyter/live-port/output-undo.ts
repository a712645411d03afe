/**
 * Outputs and execution counts in the live notebook's undo history.
 *
 * JupyterLab's undo history (Y.UndoManager) tracks sources and cells, not
 * outputs: undoing an agent run put the user's code back with the agent's
 * outputs under it. While an agent run's edits are grouped, this records
 * the outputs and count of each cell before the agent first runs it, and
 * attaches them (and the ones at the end of the run) to the run's undo
 * step, as Yjs intends for such state (`stackItem.meta`); undoing the step
 * puts the earlier outputs back, redoing it the agent's.
 */
import type { ICodeCellModel } from '@jupyterlab/cells';
import type * as nbformat from '@jupyterlab/nbformat';
import type { INotebookModel } from '@jupyterlab/notebook';
import type { CellOutput } from '../../agent/ports';
import { toOutput } from '../../kernel/nbformat-outputs';

/** A cell's outputs and execution count at one moment. */
interface IOutputState {
  outputs: nbformat.IOutput[];
  executionCount: number | null;
}

/** What an undo step carries: each cell's outputs before and after the run. */
interface IOutputStep {
  before: Map<string, IOutputState>;
  after: Map<string, IOutputState>;
}

/** The part of a Y.UndoManager stack item used here. */
interface IStackItemLike {
  meta: Map<unknown, unknown>;
}

/** The part of Y.UndoManager used here. */
export interface IUndoStackLike {
  undoStack: IStackItemLike[];
  redoStack: IStackItemLike[];
  on(
    name: 'stack-item-popped',
    handler: (event: { stackItem: IStackItemLike; type: string }) => void
  ): void;
}

const META_KEY = 'notebook-agent:outputs';

/** Put back a code cell's outputs and execution count. */
export function restoreCellOutputs(
  cell: ICodeCellModel,
  outputs: ReadonlyArray<CellOutput>,
  executionCount: number | null
): void {
  apply(cell, {
    outputs: outputs.map(output => toOutput(output, executionCount)),
    executionCount
  });
}

/** Keeps outputs in the undo history of one notebook. */
export class OutputUndo {
  constructor(private readonly _model: () => INotebookModel | null) {}

  /** A run's grouped edits start (after `stopCapturing`). */
  begin(undo: IUndoStackLike | null): void {
    if (!undo) {
      return;
    }
    this._listen(undo);
    this._start = undo.undoStack.length;
    this._before = new Map();
  }

  /** The agent is about to run `cell`: remember what it shows now, once per run. */
  beforeRun(cell: ICodeCellModel): void {
    if (this._before && !this._before.has(cell.id)) {
      this._before.set(cell.id, stateOf(cell));
    }
  }

  /** The run's grouped edits end: its undo step (if it made one) carries the outputs. */
  end(undo: IUndoStackLike | null): void {
    const before = this._before;
    this._before = null;
    if (!undo || !before?.size || undo.undoStack.length <= this._start) {
      return;
    }
    const after = new Map<string, IOutputState>();
    for (const id of before.keys()) {
      const cell = this._cell(id);
      if (cell) {
        after.set(id, stateOf(cell));
      }
    }
    const step: IOutputStep = { before, after };
    undo.undoStack[undo.undoStack.length - 1].meta.set(META_KEY, step);
  }

  private _listen(undo: IUndoStackLike): void {
    if (this._listening.has(undo)) {
      return;
    }
    this._listening.add(undo);
    undo.on('stack-item-popped', ({ stackItem, type }) => {
      const step = stackItem.meta.get(META_KEY) as IOutputStep | undefined;
      if (!step) {
        return;
      }
      // The popped step now lives on the other stack: carry the outputs along.
      const other = type === 'undo' ? undo.redoStack : undo.undoStack;
      other[other.length - 1]?.meta.set(META_KEY, step);
      for (const [id, state] of type === 'undo' ? step.before : step.after) {
        const cell = this._cell(id);
        if (cell) {
          apply(cell, state);
        }
      }
    });
  }

  private _cell(id: string): ICodeCellModel | null {
    const cells = this._model()?.cells;
    for (let i = 0; cells && i < cells.length; i++) {
      const cell = cells.get(i);
      if (cell.id === id) {
        return cell.type === 'code' ? (cell as ICodeCellModel) : null;
      }
    }
    return null;
  }

  private _start = 0;
  private _before: Map<string, IOutputState> | null = null;
  private readonly _listening = new WeakSet<IUndoStackLike>();
}

function stateOf(cell: ICodeCellModel): IOutputState {
  return {
    outputs: cell.outputs.toJSON(),
    executionCount: cell.executionCount ?? null
  };
}

function apply(cell: ICodeCellModel, state: IOutputState): void {
  cell.outputs.clear();
  cell.outputs.fromJSON(state.outputs);
  cell.executionCount = state.executionCount;
}
