/**
 * Attaching things to the next prompt: files (from the user's machine or
 * the file browser, copied next to the active notebook when they are not
 * there already) and the notebook's selected cells (a command, also in the
 * cell context menu).
 */
import type { JupyterFrontEnd } from '@jupyterlab/application';
import { PathExt } from '@jupyterlab/coreutils';
import type { INotebookTracker } from '@jupyterlab/notebook';
import type { TranslationBundle } from '@jupyterlab/translation';
import type { IFileAttachment } from '../../agent/context/attachments';
import type { ChatSession } from '../../agent/session/chat-session';
import type { AttachmentStore } from '../../components/prompt/attachment-store';
import { CommandIDs } from '../commands/commands';
import { attachServerFile } from './server-files';
import { uploadInto } from '../core/upload';

/** What the sidebar calls to attach files. */
export interface IAttachFiles {
  /** Files from the user's machine: copied next to the notebook. */
  files: (files: File[]) => void;
  /** Files on the server (dragged from the file browser), by path. */
  paths: (paths: string[]) => void;
}

/** Wire the command; returns what the sidebar calls with files to attach. */
export function setupAttachments(
  app: JupyterFrontEnd,
  tracker: INotebookTracker,
  session: ChatSession,
  store: AttachmentStore,
  showSidebar: () => void,
  trans: TranslationBundle
): IAttachFiles {
  app.commands.addCommand(CommandIDs.addCellsToChat, {
    label: trans.__('Add Selected Cells to Notebook Agent Chat'),
    caption: trans.__('Point the agent at these cells in your next prompt'),
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

  const contents = app.serviceManager.contents;
  /** Attach what `copy` makes of each item, in the active notebook's directory. */
  const attach = <T>(
    items: T[],
    copy: (directory: string, item: T) => Promise<IFileAttachment>
  ) => {
    const panel = tracker.currentWidget;
    if (!panel) {
      session.reportError({
        kind: 'no-notebook',
        message: trans.__(
          'Open a notebook first: attached files are copied next to it.'
        ),
        hint: trans.__(
          'Open or create a notebook, then attach the files again.'
        )
      });
      return;
    }
    const directory = PathExt.dirname(panel.context.path);
    void Promise.all(items.map(item => copy(directory, item)))
      .then(attached => store.addFiles(attached))
      .catch((error: Error) =>
        session.reportError({
          kind: 'unknown',
          message: trans.__('A file could not be attached: %1', error.message),
          hint: trans.__(
            'Check that the notebook’s directory is writable and the file is not too large, then try again.'
          )
        })
      );
  };
  return {
    files: files =>
      attach(files, (directory, file) => uploadInto(contents, directory, file)),
    paths: paths =>
      attach(paths, (directory, path) =>
        attachServerFile(contents, directory, path)
      )
  };
}
