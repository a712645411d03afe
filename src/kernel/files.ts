/**
 * Files through a Jupyter server's contents API, for the agent's
 * list_files/read_file/write_file on every port: paths relative to the
 * server root, links out of the root or to hidden files refused or left out
 * (src/server-api/path-check.ts), binary files refused, a write through a
 * folder link judged where it really lands (agent/tools/write-landing.ts),
 * a file with other names (hard links) never replaced, and refusals written
 * for the model to act on.
 */
import { ServerConnection, type Contents } from '@jupyterlab/services';
import {
  FileTooLargeError,
  MAX_READ_BYTES,
  NoSuchFileError,
  NotebookPortError,
  type IFileEntry,
  type INotebookPort
} from '../agent/ports';
import { nothingAt } from '../agent/port-refusals';
import { folderOf } from '../agent/tools/runs-later';
import { judgeLanding } from '../agent/tools/write-landing';
import {
  assertInsideRoot,
  checkedPlace,
  withoutHiddenEntries
} from '../server-api/path-check';

/**
 * INotebookPort's four file methods over a contents manager: the real
 * ports (the live and the server port) extend it, so their files are
 * these functions and nothing else.
 */
export abstract class ContentsFilesPort implements Pick<
  INotebookPort,
  'listFiles' | 'readFile' | 'writeFile' | 'deleteFile'
> {
  constructor(protected readonly contents: Contents.IManager) {}

  /** The open notebook's path: writes are judged against its folder. */
  abstract readonly path: string;

  listFiles(path: string): Promise<IFileEntry[]> {
    return listFiles(this.contents, path);
  }

  readFile(path: string): Promise<string> {
    return readTextFile(this.contents, path);
  }

  writeFile(path: string, text: string): Promise<void> {
    return writeTextFile(this.contents, path, text, this.path);
  }

  /**
   * Where `path` really is, links followed, relative to the root (write_file
   * judges that place: agent/tools/write-landing.ts); null when the server
   * does not say. Throws like a read when the path is refused.
   */
  async realPlace(path: string): Promise<string | null> {
    return (await checkedPlace(this.contents.serverSettings, normalize(path)))
      .real;
  }

  /**
   * How many names (hard links) the file at `path` has, links followed;
   * null for no file there or an older server (write_file refuses more
   * than one: agent/tools/write-landing.ts).
   */
  async fileLinks(path: string): Promise<number | null> {
    return (await checkedPlace(this.contents.serverSettings, normalize(path)))
      .links;
  }

  deleteFile(path: string): Promise<void> {
    return deleteFile(this.contents, path);
  }
}

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
  const resolved = await assertInsideRoot(contents.serverSettings, file);
  const meta = await get(contents, file, { content: false }, 'file');
  if (meta.type === 'directory') {
    throw new NotebookPortError(
      `${file} is a directory. Use list_files to see what it contains.`
    );
  }
  // The contents API has no ranges: a file is downloaded whole, so a huge
  // one is refused before (its size as resolved: a link lists its own).
  const size = resolved ?? meta.size ?? null;
  if (size !== null && size > MAX_READ_BYTES) {
    throw new FileTooLargeError(file, size);
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

/**
 * Create or replace a text file. The path is checked first (inside the
 * root, nothing hidden on the way, no link to a hidden or outside place:
 * writing through `notes.txt -> .env` would replace .env); a directory
 * there is refused. `notebookPath`: the open notebook's, whose folder (as
 * named and as it really is) a module next to it shadows libraries in.
 */
export async function writeTextFile(
  contents: Contents.IManager,
  path: string,
  text: string,
  notebookPath = ''
): Promise<void> {
  const file = normalize(path);
  // A hard link (`notes/hl.txt`, one file with `venv/pip.conf`) is no link
  // on the way: the save below rewrites the shared file in place, changing
  // every other name. Asked again here, since one can appear after the
  // preview judged the write.
  const { real, links } = await checkedPlace(contents.serverSettings, file);
  if ((real !== null && real !== file) || (links ?? 1) > 1) {
    // A link on the way can lead a harmless name into a place whose files
    // run later (`helpers -> proj`, the notebook's folder; `-> site-packages`):
    // write_file asked, or not, from the name (and judged the real place
    // then; a link can change since). The real place is named back so that
    // the agent writes it there, where the rule asks the user.
    const landing = judgeLanding({
      path: file,
      real,
      notebookPath,
      realNotebookFolder: await realFolder(contents, notebookPath),
      links
    });
    if ('refused' in landing) {
      throw new NotebookPortError(landing.refused);
    }
  }
  const meta = await get(contents, file, { content: false }, 'file').catch(
    error => {
      if (error instanceof NoSuchFileError) {
        return null;
      }
      throw error;
    }
  );
  if (meta && meta.type !== 'file') {
    throw new NotebookPortError(
      `${file} is a ${meta.type}, not a text file, so write_file does not replace it.`
    );
  }
  if (!meta) {
    await makeParents(contents, file);
  }
  try {
    await contents.save(file, { type: 'file', format: 'text', content: text });
  } catch (error) {
    throw failure(error, 'write', file);
  }
}

/** Where the notebook's folder really is; null when not known (or refused). */
async function realFolder(
  contents: Contents.IManager,
  notebookPath: string
): Promise<string | null> {
  try {
    return (await checkedPlace(contents.serverSettings, folderOf(notebookPath)))
      .real;
  } catch {
    return null;
  }
}

/**
 * Create the missing folders above `file` (its whole path was checked:
 * nothing hidden, nothing outside the root, as given or as resolved).
 */
async function makeParents(
  contents: Contents.IManager,
  file: string
): Promise<void> {
  const parts = file.split('/').slice(0, -1);
  for (let depth = 1; depth <= parts.length; depth++) {
    const dir = parts.slice(0, depth).join('/');
    const existing = await get(contents, dir, { content: false }, 'file').catch(
      error => {
        if (error instanceof NoSuchFileError) {
          return null;
        }
        throw error;
      }
    );
    if (existing && existing.type !== 'directory') {
      throw new NotebookPortError(
        `${dir} is a ${existing.type}, not a folder, so ${file} cannot be written under it.`
      );
    }
    if (!existing) {
      try {
        await contents.save(dir, { type: 'directory' });
      } catch (error) {
        throw failure(error, 'create the folder', dir);
      }
    }
  }
}

/** Delete a file (checked like a write). */
export async function deleteFile(
  contents: Contents.IManager,
  path: string
): Promise<void> {
  const file = normalize(path);
  await assertInsideRoot(contents.serverSettings, file);
  try {
    await contents.delete(file);
  } catch (error) {
    throw failure(error, 'delete', file);
  }
}

/** A contents API failure as a message the model can act on. */
function failure(error: unknown, verb: string, path: string): unknown {
  if (error instanceof ServerConnection.ResponseError) {
    return new NotebookPortError(
      `Could not ${verb} "${path}": ${error.message} (HTTP ${error.response.status}).` +
        (error.response.status === 404 ? ' list_files shows what exists.' : '')
    );
  }
  return error;
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
        throw nothingAt(path, what);
      }
      throw new NotebookPortError(
        `Could not read "${path}": ${error.message} (HTTP ${error.response.status}).`
      );
    }
    throw error;
  }
}
