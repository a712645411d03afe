/**
 * Whether paths are taken, over the contents API: apart from the files
 * engine (./files.ts), whose checks of where a write lands the browser's
 * start-up does not need (the sidebar's uploads choose free names with it).
 *
 * Each check lists the parent folder rather than asking for the path itself:
 * a name that is free (the usual answer) would be a 404, which the browser
 * logs as an error in the console for every check. Any failure counts as
 * "not there": callers only choose a free name or ask before replacing, and
 * the write that follows reports a real failure.
 */
import { PathExt } from '@jupyterlab/coreutils';
import type { Contents } from '@jupyterlab/services';

/** The names in `directory` (files, notebooks and folders); none if it can't be listed. */
export async function namesIn(
  contents: Contents.IManager,
  directory: string
): Promise<Set<string>> {
  try {
    const folder = await contents.get(directory, { content: true });
    const items: unknown = folder.content;
    return new Set(
      Array.isArray(items)
        ? items.map(item => (item as Contents.IModel).name)
        : []
    );
  } catch {
    return new Set();
  }
}

/** Whether something (file, notebook or folder) is at `path`. */
export async function pathExists(
  contents: Contents.IManager,
  path: string
): Promise<boolean> {
  return (await existingPaths(contents, [path])).length > 0;
}

/** Which of `paths` are taken, in their order: each parent folder listed once. */
export async function existingPaths(
  contents: Contents.IManager,
  paths: readonly string[]
): Promise<string[]> {
  const listings = new Map<string, Promise<Set<string>>>();
  const existing: string[] = [];
  for (const path of paths) {
    const name = PathExt.basename(path);
    if (!name) {
      existing.push(path); // the root
      continue;
    }
    const directory = PathExt.dirname(path);
    if (!listings.has(directory)) {
      listings.set(directory, namesIn(contents, directory));
    }
    if ((await listings.get(directory)!).has(name)) {
      existing.push(path);
    }
  }
  return existing;
}

/**
 * `name`, or the first of "stem-1.ext", "stem-2.ext"… that `taken` does not
 * hold: attaching never replaces a file.
 */
export function firstFreeName(
  taken: ReadonlySet<string>,
  name: string
): string {
  let candidate = name;
  for (let i = 1; taken.has(candidate); i++) {
    candidate = numberedName(name, i);
  }
  return candidate;
}

/** "data.csv" → "data-1.csv" for i = 1. */
export function numberedName(name: string, i: number): string {
  const extension = PathExt.extname(name);
  return `${name.slice(0, name.length - extension.length)}-${i}${extension}`;
}
