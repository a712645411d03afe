/**
 * What the sidebar does to the notebook for the user: insert code from an
 * answer as a new cell, and bring a cell the agent touched into view.
 */
import type { JupyterFrontEnd } from '@jupyterlab/application';
import { NotebookActions, type INotebookTracker } from '@jupyterlab/notebook';
import type { TranslationBundle } from '@jupyterlab/translation';
import type { ChatSession } from '../../agent/session/chat-session';

/** Insert `code` as a new code cell below the active cell (the user's own edit). */
export function insertCodeCell(
  app: JupyterFrontEnd,
  tracker: INotebookTracker,
  session: ChatSession,
  code: string,
  trans: TranslationBundle
): void {
  const panel = tracker.currentWidget;
  if (!panel) {
    session.reportError({
      kind: 'no-notebook',
      message: trans.__('No notebook is open to insert the code into.'),
      hint: trans.__(
        'Open a notebook, click the cell the code should follow, and try again.'
      )
    });
    return;
  }
  NotebookActions.insertBelow(panel.content);
  const cell = panel.content.activeCell;
  if (cell) {
    if (cell.model.type !== 'code') {
      NotebookActions.changeCellType(panel.content, 'code');
    }
    panel.content.activeCell?.model.sharedModel.setSource(code);
  }
  app.shell.activateById(panel.id);
}

/**
 * Bring a cell into view in whichever notebook holds it; false when no open
 * notebook holds it (deleted, or its notebook is closed).
 */
export function showCell(
  app: JupyterFrontEnd,
  tracker: INotebookTracker,
  cellId: string
): boolean {
  let shown = false;
  tracker.forEach(panel => {
    const index = panel.content.widgets.findIndex(
      cell => cell.model.id === cellId
    );
    if (index >= 0 && !shown) {
      shown = true;
      app.shell.activateById(panel.id);
      panel.content.activeCellIndex = index;
      void panel.content.scrollToItem(index);
    }
  });
  return shown;
}
