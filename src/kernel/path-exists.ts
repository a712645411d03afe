/**
 * Whether a path is taken, over the contents API: apart from the files
 * engine (./files.ts), whose checks of where a write lands the browser's
 * start-up does not need (the sidebar's uploads choose free names with it).
 */
import { PathExt } from '@jupyterlab/coreutils';
import type { Contents } from '@jupyterlab/services';

/**
 * Whether something (file, notebook or folder) is at `path`. Any failure
 * counts as "not there": callers only choose a free name or ask before
 * replacing, and the write that follows reports a real failure.
 *
 * It lists the parent folder rather than asking for the path itself: a
 * name that is free (the usual answer) would be a 404, which the browser
 * logs as an error in the console for every check.
 */
export async function pathExists(
  contents: Contents.IManager,
  path: string
): Promise<boolean> {
  const name = PathExt.basename(path);
  if (!name) {
    return true; // the root
  }
  try {
    const folder = await contents.get(PathExt.dirname(path), {
      content: true
    });
    const items: unknown = folder.content;
    return (
      Array.isArray(items) &&
      items.some(item => (item as Contents.IModel).name === name)
    );
  } catch {
    return false;
  }
}
