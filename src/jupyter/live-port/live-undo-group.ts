/**
 * One undo step for a whole agent run in a live notebook: while the group
 * is open, the notebook's Y.UndoManager merges every change into one
 * capture (one Undo restores the notebook as it was), and the step carries
 * the outputs and execution counts of the cells the run ran
 * (./output-undo.ts), which the undo history does not track.
 */
import type { ICodeCellModel } from '@jupyterlab/cells';
import type { NotebookPanel } from '@jupyterlab/notebook';
import { OutputUndo, type IUndoStackLike } from './output-undo';

/** Y.UndoManager's merge window while a run's edits are grouped: a day. */
const GROUP_CAPTURE_MS = 24 * 3600 * 1000;

/** The part of Y.UndoManager we use (YNotebook has one; ISharedNotebook does not declare it). */
interface IUndoManagerLike extends IUndoStackLike {
  captureTimeout: number;
  stopCapturing(): void;
}

/** The undo grouping of one notebook panel. */
export class LiveUndoGroup {
  constructor(private readonly _panel: NotebookPanel) {
    this._outputs = new OutputUndo(() =>
      _panel.isDisposed ? null : _panel.content.model
    );
  }

  /** Start grouping (a nested begin is part of the open group). */
  begin(): void {
    const undo = this._undoManager();
    if (undo && this._savedCapture === null) {
      undo.stopCapturing();
      this._savedCapture = undo.captureTimeout;
      undo.captureTimeout = GROUP_CAPTURE_MS;
      this._outputs.begin(undo);
    }
  }

  /** The agent is about to run `cell`: its outputs now join the open group's step. */
  beforeRun(cell: ICodeCellModel): void {
    this._outputs.beforeRun(cell);
  }

  /** End the group: later changes are undo steps of their own again. */
  end(): void {
    const undo = this._undoManager();
    if (undo && this._savedCapture !== null) {
      undo.stopCapturing();
      undo.captureTimeout = this._savedCapture;
      this._outputs.end(undo);
    }
    this._savedCapture = null;
  }

  private _undoManager(): IUndoManagerLike | null {
    const shared = this._panel.isDisposed
      ? null
      : (this._panel.content.model?.sharedModel as unknown as {
          undoManager?: IUndoManagerLike;
        });
    return shared?.undoManager ?? null;
  }

  private readonly _outputs: OutputUndo;
  private _savedCapture: number | null = null;
}
