/**
 * The notebook file of a ServerNotebookPort through a Jupyter server's
 * contents API: load (or create) it, save it back. (The agent's own file
 * listing and reading, shared with the live port, is src/kernel/files.ts.)
 */
import { ServerConnection, type Contents } from '@jupyterlab/services';
import { readDiskVersion, type IDiskVersion } from './disk-version';
import {
  emptyNotebook,
  parseNotebook,
  toNotebookContent,
  type INotebookDocument
} from './notebook-file';

/** A notebook as loaded, with the version of the file it came from. */
export interface ILoadedNotebook {
  doc: INotebookDocument;
  version: IDiskVersion;
}

/**
 * Load the notebook at `path`; with `createIfMissing`, create (and save)
 * an empty one when there is none.
 */
export async function loadServerNotebook(
  contents: Contents.IManager,
  path: string,
  options: {
    createIfMissing?: boolean;
    kernelName?: string;
    newCellId?: () => string;
  } = {}
): Promise<ILoadedNotebook> {
  try {
    const model = await contents.get(path, {
      type: 'notebook',
      content: true,
      hash: true
    });
    return {
      doc: parseNotebook(model.content, options.newCellId),
      version: {
        lastModified: model.last_modified ?? null,
        hash: model.hash ?? null
      }
    };
  } catch (error) {
    const missing =
      error instanceof ServerConnection.ResponseError &&
      error.response.status === 404;
    if (!missing || !options.createIfMissing) {
      throw error;
    }
  }
  const doc = emptyNotebook(options.kernelName ?? 'python3');
  const version = await saveServerNotebook(contents, path, doc);
  return { doc, version };
}

/** Write `doc` to `path` as nbformat 4.5+ JSON; resolves with the version written. */
export async function saveServerNotebook(
  contents: Contents.IManager,
  path: string,
  doc: INotebookDocument
): Promise<IDiskVersion> {
  const saved = await contents.save(path, {
    type: 'notebook',
    format: 'json',
    content: toNotebookContent(doc)
  });
  // The save answer has no hash; ask for it, so that a later check can tell
  // a file only touched from one really changed.
  const now = await readDiskVersion(contents, path);
  return {
    lastModified: saved.last_modified ?? now?.lastModified ?? null,
    hash: now?.lastModified === saved.last_modified ? (now?.hash ?? null) : null
  };
}
