/**
 * Which cell "Fix this cell" fixes: the one named by the command's
 * `cellId` (in the current notebook); from the cell context menu, the cell
 * the menu was opened on (JupyterLab leaves the active cell where it was
 * when that cell is one of the selected ones, or after Shift+Enter moved on);
 * otherwise (Ctrl/Cmd+Alt+F, the palette) the active cell of the current
 * notebook.
 */
import type { JupyterFrontEnd } from '@jupyterlab/application';
import type { Cell } from '@jupyterlab/cells';
import type { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import type { ReadonlyPartialJSONObject } from '@lumino/coreutils';

/** A cell and its notebook. */
export interface IFixTarget {
  panel: NotebookPanel;
  /** The cell's model id. */
  cellId: string;
  /** Its type ('code', 'markdown', 'raw'). */
  type: string;
}

/**
 * The cell the fix-cell command acts on with `args`, or null (no notebook,
 * no such cell). `isContextMenu`: run from the cell context menu (its
 * entry in schema/plugin.json passes it).
 */
export function fixTarget(
  app: JupyterFrontEnd,
  tracker: INotebookTracker,
  args: ReadonlyPartialJSONObject
): IFixTarget | null {
  if (typeof args.cellId === 'string') {
    const panel = tracker.currentWidget;
    const cell = panel?.content.widgets.find(c => c.model.id === args.cellId);
    return panel
      ? { panel, cellId: args.cellId, type: cell?.model.type ?? 'code' }
      : null;
  }
  if (args.isContextMenu === true) {
    return menuCell(app, tracker);
  }
  const panel = tracker.currentWidget;
  const cell = panel?.content.activeCell;
  return panel && cell ? of(panel, cell) : null;
}

/** The cell the context menu was opened on, with its notebook. */
function menuCell(
  app: JupyterFrontEnd,
  tracker: INotebookTracker
): IFixTarget | null {
  const node = app.contextMenuHitTest(node =>
    node.classList.contains('jp-Cell')
  );
  if (!node) {
    return null;
  }
  const panel = tracker.find(panel => panel.content.node.contains(node));
  const cell = panel?.content.widgets.find(cell => cell.node === node);
  return panel && cell ? of(panel, cell) : null;
}

function of(panel: NotebookPanel, cell: Cell): IFixTarget {
  return { panel, cellId: cell.model.id, type: cell.model.type };
}
