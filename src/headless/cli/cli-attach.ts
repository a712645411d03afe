/**
 * `generate --attach FILE`: putting the user's files next to the new
 * notebook, as the sidebar does (src/jupyter/core/upload.ts, sidebar/server-files.ts):
 *
 * - a file already in the notebook's directory (or below) is attached by
 *   its relative path, not copied (private server only: a given server's
 *   disk is not ours to look at);
 * - any other file is copied under a free name ("data.csv", else
 *   "data-1.csv", "data-2.csv"…): an existing file is never replaced;
 * - a symbolic link is followed: its target is copied (as `cp` does), with
 *   the target's permission bits kept when the private server's directory
 *   is written (a 0600 file stays 0600); through a given server's contents
 *   API the server sets them;
 * - copies stream: on disk with the kernel's file copy, to a given server
 *   in 1 MiB chunks of the contents API (as JupyterLab's file browser
 *   uploads), so a file of any size costs bounded memory.
 *
 * Every copy can be undone, for a run that fails before it starts.
 */
import { constants } from 'node:fs';
import { access, chmod, copyFile, open, rm, stat } from 'node:fs/promises';
import { basename, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { ContentsManager } from '@jupyterlab/services';
import type { IFileAttachment } from '../../agent/context/attachments';
import { firstFreeName, namesIn, numberedName } from '../../kernel/path-exists';
import { CliError } from './cli-connect';

/** Bytes per contents-API request (JupyterLab's file browser uses 1 MiB too). */
export const UPLOAD_CHUNK = 1024 * 1024;

/** A file named with --attach, checked before anything is written. */
export interface ILocalFile {
  /** As the user wrote it, for messages. */
  given: string;
  /** Absolute path (a link, when the user named a link). */
  path: string;
  size: number;
  /** Permission bits of the file (of the link's target). */
  mode: number;
}

/** Where the copies go. */
export type AttachTarget =
  | { kind: 'disk'; directory: string }
  | { kind: 'server'; contents: ContentsManager; directory: string };

/** A file attached to the prompt, and how to take its copy back. */
export interface IAttached {
  attachment: IFileAttachment;
  /** Removes the copy; nothing when the file was attached in place. */
  undo: () => Promise<void>;
}

/** Check every file: it exists (links followed), is a regular file and can be read. */
export async function checkAttachments(
  files: string[],
  cwd: string
): Promise<ILocalFile[]> {
  const checked: ILocalFile[] = [];
  for (const given of files) {
    const path = resolve(cwd, given);
    const info = await stat(path).catch(() => null);
    if (!info) {
      throw new CliError(`cannot attach ${given}: no such file.`);
    }
    if (info.isDirectory()) {
      throw new CliError(
        `cannot attach ${given}: it is a folder; attach the files in it.`
      );
    }
    if (!info.isFile()) {
      throw new CliError(`cannot attach ${given}: not a regular file.`);
    }
    await access(path, constants.R_OK).catch(() => {
      throw new CliError(`cannot attach ${given}: permission denied.`);
    });
    checked.push({ given, path, size: info.size, mode: info.mode & 0o777 });
  }
  return checked;
}

/** Put `file` next to the notebook (see the file's comment for the rules). */
export async function attachFile(
  file: ILocalFile,
  target: AttachTarget
): Promise<IAttached> {
  if (target.kind === 'disk') {
    const inside = relative(target.directory, file.path);
    if (inside && !inside.startsWith(`..${sep}`) && !isAbsolute(inside)) {
      return {
        attachment: { name: inside.split(sep).join('/'), size: file.size },
        undo: async () => undefined
      };
    }
    const copy = await copyToFreeName(file, target.directory);
    return {
      attachment: { name: basename(copy), size: file.size },
      undo: () => rm(copy, { force: true })
    };
  }
  const { contents, directory } = target;
  const at = (name: string) => (directory ? `${directory}/${name}` : name);
  const name = firstFreeName(
    await namesIn(contents, directory),
    basename(file.path)
  );
  const path = at(name);
  const undo = () => contents.delete(path).catch(() => undefined);
  try {
    await uploadToServer(contents, file, path);
  } catch (error) {
    await undo();
    throw new CliError(
      `cannot copy ${file.given} to the Jupyter server: ${(error as Error).message}`
    );
  }
  return { attachment: { name, size: file.size }, undo };
}

/** Copy on disk under the first free name; never replaces anything (O_EXCL). */
async function copyToFreeName(
  file: ILocalFile,
  directory: string
): Promise<string> {
  const name = basename(file.path);
  for (let i = 0; i < 1000; i++) {
    const candidate = join(directory, i ? numberedName(name, i) : name);
    try {
      // Follows a link; the kernel copies (copy_file_range), in bounded memory.
      await copyFile(file.path, candidate, constants.COPYFILE_EXCL);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
        continue;
      }
      await rm(candidate, { force: true }).catch(() => undefined);
      throw new CliError(
        `cannot copy ${file.given} next to the notebook: ${(error as Error).message}`
      );
    }
    // The copy is new, made with the umask: give it the original's bits.
    await chmod(candidate, file.mode);
    return candidate;
  }
  throw new CliError(
    `no free name for a copy of ${file.given} in ${directory}.`
  );
}

/**
 * Upload a local file through the contents API to `path` (replacing what
 * is there: callers choose a free name first), in chunks when it is large.
 */
export async function uploadToServer(
  contents: ContentsManager,
  file: Pick<ILocalFile, 'path' | 'size'>,
  path: string
): Promise<void> {
  const handle = await open(file.path, 'r');
  try {
    const buffer = Buffer.alloc(Math.min(UPLOAD_CHUNK, file.size));
    let offset = 0;
    for (let chunk = 1; ; chunk++) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, offset);
      offset += bytesRead;
      const last = bytesRead < buffer.length || offset >= file.size;
      await contents.save(path, {
        type: 'file',
        format: 'base64',
        content: buffer.subarray(0, bytesRead).toString('base64'),
        // A file in one piece is saved plainly (any contents manager can);
        // chunks are numbered from 1, the last one is -1.
        ...(chunk === 1 && last ? {} : { chunk: last ? -1 : chunk })
      });
      if (last) {
        return;
      }
    }
  } finally {
    await handle.close();
  }
}
