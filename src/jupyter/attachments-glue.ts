/**
 * Attaching things to the next prompt: files (copied next to the active
 * notebook) and the notebook's selected cells (a command, also in the cell
 * context menu).
 */
import type { JupyterFrontEnd } from '@jupyterlab/application';
import { PathExt } from '@jupyterlab/coreutils';
import type { INotebookTracker } from '@jupyterlab/notebook';
import type { AgentSession } from '../agent/session';
import type { AttachmentStore } from '../components/attachment-store';
import { CommandIDs } from './commands';
import { uploadInto } from './upload';

/** Wire the command; returns what the sidebar calls with files to attach. */
export function setupAttachments(
  app: JupyterFrontEnd,
  tracker: INotebookTracker,
  session: AgentSession,
  store: AttachmentStore,
  showSidebar: () => void
): (files: File[]) => void {
  app.commands.addCommand(CommandIDs.addCellsToChat, {
    label: 'Add Selected Cells to Notebook Agent Chat',
    caption: 'Point the agent at these cells in your next prompt',
    isEnabled: () => !!tracker.currentWidget,
    execute: () => {
      const notebook = tracker.currentWidget?.content;
      if (!notebook) {
        return;
      }
      store.addCells(
        notebook.widgets
          .map((cell, index) => ({ cell, index }))
          .filter(({ cell }) => notebook.isSelectedOrActive(cell))
          .map(({ cell, index }) => ({
            id: cell.model.id,
            index: index + 1,
            source: cell.model.sharedModel.getSource()
          }))
      );
      showSidebar();
    }
  });

  return files => {
    const panel = tracker.currentWidget;
    if (!panel) {
      session.reportError({
        kind: 'no-notebook',
        message: 'Open a notebook first: attached files are copied next to it.',
        hint: 'Open or create a notebook, then attach the files again.'
      });
      return;
    }
    const directory = PathExt.dirname(panel.context.path);
    void Promise.all(
      files.map(file =>
        uploadInto(app.serviceManager.contents, directory, file)
      )
    )
      .then(uploaded => store.addFiles(uploaded))
      .catch((error: Error) =>
        session.reportError({
          kind: 'unknown',
          message: `A file could not be copied next to the notebook: ${error.message}`,
          hint: 'Check that the notebook’s directory is writable and the file is not too large, then try again.'
        })
      );
  };
}
