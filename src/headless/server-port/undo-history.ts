/**
 * Undo for a notebook held in memory by a ServerNotebookPort.
 *
 * A file on a server has no undo history of its own, so the port keeps one:
 * each outermost undo group (one agent run, or one fix of several turns)
 * records the cells as they were when it began, and `undo()` puts them back,
 * sources byte for byte, the cells the agent added removed and the ones it
 * deleted restored. This is the headless form of the live notebook's
 * "one Undo reverts a whole run".
 */
import type { INotebookDocument, IServerCell } from './notebook-file';

/** Most undo steps kept; older ones are forgotten. */
const MAX_STEPS = 20;

/** The undo steps of one notebook document. */
export class UndoHistory {
  constructor(private readonly _doc: INotebookDocument) {}

  /** Start a group; only the outermost one records a step. */
  begin(): void {
    if (this._depth++ === 0) {
      this._steps.push(this._doc.cells.map(copyCell));
      if (this._steps.length > MAX_STEPS) {
        this._steps.shift();
      }
    }
  }

  /** End the group started by `begin`. */
  end(): void {
    this._depth = Math.max(0, this._depth - 1);
  }

  /** Whether there is a step to undo. */
  get canUndo(): boolean {
    return this._steps.length > 0;
  }

  /**
   * Put the cells back as they were when the last group began; false when
   * there is nothing to undo. Outputs go back too: they belong to the cells.
   */
  undo(): boolean {
    const cells = this._steps.pop();
    if (!cells) {
      return false;
    }
    this._doc.cells.splice(0, this._doc.cells.length, ...cells.map(copyCell));
    return true;
  }

  private _depth = 0;
  private readonly _steps: IServerCell[][] = [];
}

/** A copy that later edits of the live cell cannot reach (outputs are values). */
function copyCell(cell: IServerCell): IServerCell {
  return {
    ...cell,
    outputs: [...cell.outputs],
    metadata: structuredClone(cell.metadata),
    ...(cell.attachments
      ? { attachments: structuredClone(cell.attachments) }
      : {})
  };
}
