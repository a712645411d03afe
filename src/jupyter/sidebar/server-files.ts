/**
 * Attaching files that are already on the Jupyter server (dragged from the
 * file browser): a file in the notebook's directory or below it is attached
 * by its relative path; one elsewhere is copied next to the notebook first,
 * under a free name, as uploads are (../core/upload.ts), never over another file.
 */
import { PathExt } from '@jupyterlab/coreutils';
import type { Contents } from '@jupyterlab/services';
import type { IFileAttachment } from '../../agent/context/attachments';
import { freeName } from '../core/upload';

/** Attach the server file `path` for a notebook in `directory`. */
export async function attachServerFile(
  contents: Contents.IManager,
  directory: string,
  path: string
): Promise<IFileAttachment> {
  const model = await contents.get(path, { content: false });
  if (model.type === 'directory') {
    throw new Error(`${model.name} is a folder: attach the files in it.`);
  }
  const size = typeof model.size === 'number' ? { size: model.size } : {};
  const relative = PathExt.relative(directory, model.path);
  if (!relative.startsWith('../')) {
    return { name: relative, ...size };
  }
  // The server's copy takes the same name when it is free, else "name-Copy1":
  // rename that to the name an upload would get.
  const name = await freeName(contents, directory, model.name);
  const copy = await contents.copy(model.path, directory);
  const target = PathExt.join(directory, name);
  if (copy.path !== target) {
    await contents.rename(copy.path, target);
  }
  return { name, ...size };
}
