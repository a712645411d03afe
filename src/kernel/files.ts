/**
 * Files through a Jupyter server's contents API, for the agent's
 * list_files/read_file on every port: paths relative to the server root,
 * links out of the root or to hidden files refused or left out
 * (src/server-api/path-check.ts), binary
 * files refused, and refusals written for the model to act on.
 */
import { ServerConnection, type Contents } from '@jupyterlab/services';
import { NotebookPortError, type IFileEntry } from '../agent/ports';
import {
  assertInsideRoot,
  withoutHiddenEntries
} from '../server-api/path-check';

/** List a directory ('' is the server root). */
export async function listFiles(
  contents: Contents.IManager,
  path: string
): Promise<IFileEntry[]> {
  const dir = normalize(path);
  await assertInsideRoot(contents.serverSettings, dir);
  const model = await get(contents, dir, { content: true }, 'directory');
  if (model.type !== 'directory' || !Array.isArray(model.content)) {
    throw new NotebookPortError(
      `${dir} is a ${model.type}, not a directory. Use read_file to read it, ` +
        'or list_files on its parent directory.'
    );
  }
  const entries = (model.content as Contents.IModel[])
    .map((entry): IFileEntry => ({
      path: entry.path,
      type:
        entry.type === 'directory' || entry.type === 'notebook'
          ? entry.type
          : 'file',
      size: entry.size ?? null
    }))
    .sort((a, b) => a.path.localeCompare(b.path));
  // A link whose target is hidden (notes.txt -> .env) is left out.
  return withoutHiddenEntries(contents.serverSettings, dir, entries);
}

/** Read a text file; refuses directories and binary files. */
export async function readTextFile(
  contents: Contents.IManager,
  path: string
): Promise<string> {
  const file = normalize(path);
  await assertInsideRoot(contents.serverSettings, file);
  const meta = await get(contents, file, { content: false }, 'file');
  if (meta.type === 'directory') {
    throw new NotebookPortError(
      `${file} is a directory. Use list_files to see what it contains.`
    );
  }
  // type 'file' reads notebooks as their raw JSON text too; the server
  // answers base64 for anything that is not valid UTF-8.
  const model = await get(
    contents,
    file,
    { type: 'file', content: true },
    'file'
  );
  if (model.format !== 'text' || typeof model.content !== 'string') {
    throw new NotebookPortError(
      `${file} is not a text file (${model.mimetype || 'binary'}), so it ` +
        'cannot be read as text. To inspect it, run Python code in the ' +
        'kernel (for example with open(path, "rb")).'
    );
  }
  return model.content;
}

/** Strip leading slashes and "./": the contents API wants root-relative paths. */
function normalize(path: string): string {
  return path
    .trim()
    .replace(/^(\.\/|\/)+/, '')
    .replace(/\/+$/, '');
}

async function get(
  contents: Contents.IManager,
  path: string,
  options: Contents.IFetchOptions,
  what: 'file' | 'directory'
): Promise<Contents.IModel> {
  try {
    return await contents.get(path, options);
  } catch (error) {
    if (error instanceof ServerConnection.ResponseError) {
      if (error.response.status === 404) {
        throw new NotebookPortError(
          `There is no ${what} "${path}" (paths are relative to the Jupyter ` +
            "server's root). Call list_files on its parent directory to see " +
            'what exists.'
        );
      }
      throw new NotebookPortError(
        `Could not read "${path}": ${error.message} (HTTP ${error.response.status}).`
      );
    }
    throw error;
  }
}
