/**
 * Which version of a notebook file a ServerNotebookPort last read or wrote,
 * so that saving never silently overwrites a change made on disk meanwhile
 * (the user in JupyterLab, git, an editor, another agent). JupyterLab does
 * the same check before it saves ("File Changed"); this is it, from Node.
 */
import { ServerConnection, type Contents } from '@jupyterlab/services';

/** One version of a file: its modification time and, when known, content hash. */
export interface IDiskVersion {
  lastModified: string | null;
  hash: string | null;
}

/**
 * Refusal to save over a file that changed on disk since the port read or
 * last wrote it. Nothing was written; the message says what to do.
 */
export class NotebookConflictError extends Error {
  constructor(
    readonly path: string,
    /** The version now on disk; null when the file was deleted. */
    readonly onDisk: IDiskVersion | null
  ) {
    super(
      onDisk
        ? `${path} changed on disk (modified ${onDisk.lastModified ?? 'at an unknown time'}) ` +
            'while the agent was working on it, so it was not saved over. ' +
            'Save the agent’s version under another name, or reload the file and run the agent again.'
        : `${path} was deleted or renamed on disk while the agent was working on it, ` +
            'so it was not written again. Save the agent’s version under another name.'
    );
    this.name = 'NotebookConflictError';
  }
}

/** The version of `path` on the server now; null when there is no such file. */
export async function readDiskVersion(
  contents: Contents.IManager,
  path: string
): Promise<IDiskVersion | null> {
  try {
    const model = await contents.get(path, { content: false, hash: true });
    return {
      lastModified: model.last_modified ?? null,
      hash: model.hash ?? null
    };
  } catch (error) {
    if (
      error instanceof ServerConnection.ResponseError &&
      error.response.status === 404
    ) {
      return null;
    }
    throw error;
  }
}

/**
 * Whether the file is still the version the port knows: the same
 * modification time, or (touched but unchanged) the same content hash.
 */
export function isSameVersion(
  known: IDiskVersion,
  now: IDiskVersion | null
): boolean {
  if (!now) {
    return false;
  }
  if (known.lastModified !== null && known.lastModified === now.lastModified) {
    return true;
  }
  return known.hash !== null && known.hash === now.hash;
}
