/**
 * The first lines of the data files a request names, for small models.
 *
 * A 0.5–1.5B model that has not seen a file guesses its columns, separator
 * and encoding, and its first cell fails or computes the wrong thing. A
 * person would look at the file first; the agent does it for the model,
 * without the kernel (the contents API), before the first model call: the
 * files of the notebook's folder whose names the request mentions, each
 * cut to a few short lines.
 */
import type { IFileEntry, INotebookPort } from '../ports';

/** Text data formats worth showing raw. */
const DATA_FILE = /\.(csv|tsv|txt|json|jsonl|dat|tab)$/i;

/** Files shown at most, lines per file, characters per line. */
const MAX_FILES = 3;
const MAX_LINES = 6;
const MAX_LINE_CHARS = 160;

/** Larger files are not read whole just to show their start. */
const MAX_BYTES = 5 * 1024 * 1024;

/** The folder of a server-relative path ('' for the root). */
function folderOf(path: string): string {
  const cut = path.lastIndexOf('/');
  return cut < 0 ? '' : path.slice(0, cut);
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** The data files of `entries` that `request` names (by file name), in the request's order. */
export function namedDataFiles(
  request: string,
  entries: ReadonlyArray<IFileEntry>
): IFileEntry[] {
  const named = entries
    .filter(entry => entry.type === 'file' && DATA_FILE.test(entry.path))
    .map(entry => ({ entry, at: mentionAt(request, baseName(entry.path)) }))
    .filter(found => found.at >= 0)
    .sort((a, b) => a.at - b.at);
  return named.slice(0, MAX_FILES).map(found => found.entry);
}

/** Where `name` stands in `text` as a whole name (not inside a longer one), or -1. */
function mentionAt(text: string, name: string): number {
  for (let at = text.indexOf(name); at >= 0; at = text.indexOf(name, at + 1)) {
    const before = text[at - 1] ?? ' ';
    const after = text[at + name.length] ?? ' ';
    if (!/[\w.-]/.test(before) && !/[\w-]/.test(after)) {
      return at;
    }
  }
  return -1;
}

/** The start of `text`: a few lines, each cut, with how many lines it has. */
export function headOf(text: string): string {
  const lines = text.replace(/\r?\n$/, '').split(/\r?\n/);
  const shown = lines
    .slice(0, MAX_LINES)
    .map(line =>
      line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line
    );
  // No line count: a small model takes it for the row count (the header is
  // a line too) and answers with it instead of computing.
  const more = lines.length > MAX_LINES ? '\n…' : '';
  return `${shown.join('\n')}${more}`;
}

/**
 * A message showing the start of each data file in the notebook's folder
 * that `request` names; null when it names none (or none can be read).
 */
export async function dataPreview(
  request: string,
  notebook: INotebookPort
): Promise<string | null> {
  let entries: IFileEntry[];
  try {
    entries = await notebook.listFiles(folderOf(notebook.path));
  } catch {
    return null;
  }
  const parts: string[] = [];
  for (const entry of namedDataFiles(request, entries)) {
    const name = baseName(entry.path);
    if ((entry.size ?? 0) > MAX_BYTES) {
      parts.push(
        `${name}: ${entry.size} bytes (too large to preview; read it with code).`
      );
      continue;
    }
    try {
      const text = await notebook.readFile(entry.path);
      parts.push(
        `First lines of ${name}, as stored:\n\`\`\`\n${headOf(text)}\n\`\`\``
      );
    } catch {
      parts.push(
        `${name}: not readable as UTF-8 text (it may need another encoding).`
      );
    }
  }
  return parts.length ? parts.join('\n\n') : null;
}

/**
 * The column names of each file `dataPreview` showed: its first line split
 * at the separator it uses (comma, semicolon, tab or bar).
 */
export function previewColumns(preview: string | null): string[][] {
  return [...(preview ?? '').matchAll(/```\n([^\n]*)\n/g)].flatMap(match => {
    const header = match[1];
    const sep = [',', ';', '\t', '|'].find(s => header.includes(s));
    return sep
      ? [header.split(sep).map(name => name.trim().replace(/^"|"$/g, ''))]
      : [];
  });
}

/**
 * The text values of the rows `dataPreview` showed (not its header): words
 * of three letters or more, as `Gadget` or `North`. A summary that names one
 * no output shows took it from these first lines, not from a result.
 */
export function previewValues(preview: string | null): Set<string> {
  const values = new Set<string>();
  for (const match of (preview ?? '').matchAll(/```\n[^\n]*\n([\s\S]*?)```/g)) {
    for (const word of match[1].matchAll(/[A-Za-z][A-Za-z_-]{2,}/g)) {
      values.add(word[0]);
    }
  }
  return values;
}
