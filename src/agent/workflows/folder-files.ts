/**
 * The data files in a notebook's folder, for Generate's prompt: a request
 * that names a file is answered from that file, never from made-up data.
 *
 * Measured: Generate's prompt said "No files are attached … create a small
 * realistic sample dataset" whenever the user attached none, so
 * Qwen2.5-Coder-1.5B built a 5-row sample although the request named
 * sales.csv and it was in the folder.
 */
import type { INotebookPort } from '../ports';

/** A file in the notebook's folder. */
export interface IFolderFile {
  /** Its name, relative to the notebook's folder. */
  name: string;
  /** Bytes, when known. */
  size?: number;
}

/** Files that hold data. */
const DATA_FILE =
  /\.(csv|tsv|txt|json|jsonl|ndjson|xlsx?|parquet|feather|arrow|h5|hdf5|sqlite|db|dat|tab|zip|gz)$/i;

/** Files listed at most. */
const MAX_FILES = 20;

/** The data files of the folder `notebook` is in (none when it cannot be listed). */
export async function folderDataFiles(
  notebook: INotebookPort
): Promise<IFolderFile[]> {
  const cut = notebook.path.lastIndexOf('/');
  const folder = cut < 0 ? '' : notebook.path.slice(0, cut);
  try {
    const entries = await notebook.listFiles(folder);
    return entries
      .filter(entry => entry.type === 'file' && DATA_FILE.test(entry.path))
      .slice(0, MAX_FILES)
      .map(entry => ({
        name: entry.path.slice(entry.path.lastIndexOf('/') + 1),
        ...(typeof entry.size === 'number' ? { size: entry.size } : {})
      }));
  } catch {
    return [];
  }
}

/** File names a request mentions (`sales.csv`), in its order. */
export function namedFiles(request: string): string[] {
  return [
    ...new Set(
      [
        ...request.matchAll(
          /(?<![\w./-])([\w.-]+\.[A-Za-z][\w]{0,7})(?![\w-])/g
        )
      ]
        .map(match => match[1])
        .filter(name => DATA_FILE.test(name))
    )
  ];
}
