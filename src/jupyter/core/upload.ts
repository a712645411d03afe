/**
 * Copy files from the user's machine into a directory on the Jupyter
 * server (next to a notebook), as base64 through the contents API.
 */
import { PathExt } from '@jupyterlab/coreutils';
import type { Contents } from '@jupyterlab/services';
import { firstFreeName, namesIn } from '../../kernel/path-exists';

/** The file's bytes as base64 (in slices: large files would overflow the call stack). */
export async function toBase64(file: Blob): Promise<string> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

/**
 * Upload `file` into `directory`. Without `overwrite`, an existing file of
 * the same name is kept and the upload gets a free name ("data-1.csv").
 * Resolves with the name used (relative to `directory`) and the size.
 */
export async function uploadInto(
  contents: Contents.IManager,
  directory: string,
  file: File,
  options: { overwrite?: boolean } = {}
): Promise<{ name: string; size: number }> {
  const name = options.overwrite
    ? file.name
    : await freeName(contents, directory, file.name);
  await contents.save(PathExt.join(directory, name), {
    type: 'file',
    format: 'base64',
    content: await toBase64(file)
  });
  return { name, size: file.size };
}

/**
 * `name`, or the first of "stem-1.ext", "stem-2.ext"… that no file in
 * `directory` has (the folder listed once): attaching never replaces a file.
 */
export async function freeName(
  contents: Contents.IManager,
  directory: string,
  name: string
): Promise<string> {
  return firstFreeName(await namesIn(contents, directory), name);
}
