/**
 * One undo step for a whole agent run in a live notebook: while the group
 * is open, the notebook's Y.UndoManager merges every change into one
 * capture (one Undo restores the notebook as it was).
 */
import type { NotebookPanel } from '@jupyterlab/notebook';

/** Y.UndoManager's merge window while a run's edits are grouped: a day. */
const GROUP_CAPTURE_MS = 24 * 3600 * 1000;

/** The part of Y.UndoManager we use (YNotebook has one; ISharedNotebook does not declare it). */
interface IUndoManagerLike {
  captureTimeout: number;
  stopCapturing(): void;
}

/** The undo grouping of one notebook panel. */
export class LiveUndoGroup {
  constructor(private readonly _panel: NotebookPanel) {}

  /** Start grouping (a nested begin is part of the open group). */
  begin(): void {
    const undo = this._undoManager();
    if (undo && this._savedCapture === null) {
      undo.stopCapturing();
      this._savedCapture = undo.captureTimeout;
      undo.captureTimeout = GROUP_CAPTURE_MS;
    }
  }

  /** End the group: later changes are undo steps of their own again. */
  end(): void {
    const undo = this._undoManager();
    if (undo && this._savedCapture !== null) {
      undo.stopCapturing();
      undo.captureTimeout = this._savedCapture;
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

  private _savedCapture: number | null = null;
}
