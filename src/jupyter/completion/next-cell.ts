/**
 * The next-cell suggestion: after a cell runs and the notebook moves to an
 * empty code cell below it (Shift+Enter on the last cell makes one), the
 * inline completer is invoked there, so the next step shows as ghost text
 * that Tab (or the completer's accept button) inserts as the user's own
 * edit. It never runs anything.
 */
import type { CommandRegistry } from '@lumino/commands';
import { NotebookActions, type Notebook } from '@jupyterlab/notebook';
import type { Cell } from '@jupyterlab/cells';

/** The completer's command that asks the providers now. */
const INVOKE_INLINE = 'inline-completer:invoke';

/**
 * Suggest the next cell after each run while `enabled()` says so (it may
 * first load the feature's code).
 */
export function suggestNextCells(
  commands: CommandRegistry,
  enabled: () => Promise<boolean>
): void {
  NotebookActions.executed.connect((_, { notebook, cell, success }) => {
    if (!success || !commands.hasCommand(INVOKE_INLINE)) {
      return;
    }
    // Run-and-advance activates the next cell after this signal.
    void enabled().then(on => {
      if (on && isEmptyCodeCellBelow(notebook, cell)) {
        void commands.execute(INVOKE_INLINE);
      }
    });
  });
}

function isEmptyCodeCellBelow(notebook: Notebook, ran: Cell): boolean {
  const active = notebook.activeCell;
  const index = notebook.widgets.indexOf(ran);
  return (
    !!active &&
    notebook.mode === 'edit' &&
    notebook.activeCellIndex === index + 1 &&
    active.model.type === 'code' &&
    active.model.sharedModel.getSource().trim() === ''
  );
}
