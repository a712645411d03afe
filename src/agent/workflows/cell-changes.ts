/**
 * What a run changed in a notebook, cell by cell, and how to put it back.
 *
 * Workflows that edit the user's cells (Fix this cell) snapshot the notebook
 * first, show the user the changes, and revert them on Reject: sources are
 * restored byte for byte with the outputs and execution counts they showed
 * (never the user's code above the agent's output), cells the agent added
 * are removed, and cells it deleted come back at their place.
 */
import type {
  CellOutput,
  CellType,
  ICellSnapshot,
  INotebookPort
} from '../ports';

/** One changed cell. `before`/`after` are null for an inserted/deleted cell. */
export interface ICellChange {
  cellId: string;
  kind: 'edited' | 'inserted' | 'deleted';
  type: CellType;
  before: string | null;
  after: string | null;
  /** For a deleted cell: the cell it followed (null: it was first). */
  previousId?: string | null;
  /** For an edited or deleted code cell: what it showed before the run. */
  was?: { outputs: CellOutput[]; executionCount: number | null };
}

/** The changes between two snapshots of the same notebook, in notebook order. */
export function diffCells(
  before: ReadonlyArray<ICellSnapshot>,
  after: ReadonlyArray<ICellSnapshot>
): ICellChange[] {
  const old = new Map(before.map(cell => [cell.id, cell]));
  const current = new Set(after.map(cell => cell.id));
  const changes: ICellChange[] = [];
  for (const cell of after) {
    const was = old.get(cell.id);
    if (!was) {
      changes.push({
        cellId: cell.id,
        kind: 'inserted',
        type: cell.type,
        before: null,
        after: cell.source
      });
    } else if (was.source !== cell.source) {
      changes.push({
        cellId: cell.id,
        kind: 'edited',
        type: cell.type,
        before: was.source,
        after: cell.source,
        ...shown(was)
      });
    }
  }
  before.forEach((cell, index) => {
    if (!current.has(cell.id)) {
      changes.push({
        cellId: cell.id,
        kind: 'deleted',
        type: cell.type,
        before: cell.source,
        after: null,
        previousId: index > 0 ? before[index - 1].id : null,
        ...shown(cell)
      });
    }
  });
  return changes;
}

/**
 * Undo `changes` in the notebook. Restores what it can and returns the
 * ids of cells it could not restore (for example a cell the user deleted
 * meanwhile), so the caller can say so instead of failing silently.
 */
export async function revertChanges(
  notebook: INotebookPort,
  changes: ReadonlyArray<ICellChange>
): Promise<string[]> {
  const failed: string[] = [];
  const present = () =>
    notebook.getCells().then(cells => new Set(cells.map(c => c.id)));
  let ids = await present();
  for (const change of changes) {
    try {
      if (change.kind === 'edited' && ids.has(change.cellId)) {
        await notebook.editCell(change.cellId, change.before ?? '');
        await restoreShown(notebook, change.cellId, change);
      } else if (change.kind === 'inserted' && ids.has(change.cellId)) {
        await notebook.deleteCell(change.cellId);
      } else if (change.kind === 'deleted' && change.type !== 'raw') {
        const cell = await notebook.insertCell({
          type: change.type,
          source: change.before ?? '',
          afterCellId:
            change.previousId && ids.has(change.previousId)
              ? change.previousId
              : undefined
        });
        await restoreShown(notebook, cell.id, change);
      } else if (change.kind !== 'inserted') {
        failed.push(change.cellId);
      }
    } catch {
      failed.push(change.cellId);
    }
    ids = await present();
  }
  return failed;
}

/** What a code cell showed (outputs, execution count), for a change. */
function shown(cell: ICellSnapshot): Pick<ICellChange, 'was'> {
  return cell.type === 'code'
    ? {
        was: {
          outputs: [...cell.outputs],
          executionCount: cell.executionCount
        }
      }
    : {};
}

/** Put back what a changed code cell showed before the run. */
async function restoreShown(
  notebook: INotebookPort,
  cellId: string,
  change: ICellChange
): Promise<void> {
  if (change.was) {
    await notebook.restoreOutputs(
      cellId,
      change.was.outputs,
      change.was.executionCount
    );
  }
}
