/**
 * Whether a path is taken, over the contents API: apart from the files
 * engine (./files.ts), whose checks of where a write lands the browser's
 * start-up does not need (the sidebar's uploads choose free names with it).
 */
import type { Contents } from '@jupyterlab/services';

/**
 * Whether something (file, notebook or folder) is at `path`. Any failure
 * counts as "not there": callers only choose a free name or ask before
 * replacing, and the write that follows reports a real failure.
 */
export async function pathExists(
  contents: Contents.IManager,
  path: string
): Promise<boolean> {
  try {
    await contents.get(path, { content: false });
    return true;
  } catch {
    return false;
  }
}
