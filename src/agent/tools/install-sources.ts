/**
 * Where a `pip install` in code will fetch from, beyond the package names
 * the approval card shows: the index options and URLs on the command line
 * and in the requirement files it names (`-r requirements.txt`, nested
 * `-r` and `-c` files). A requirements file may carry `--index-url`,
 * `--extra-index-url`, `--find-links`, `--trusted-host` or a package's
 * URL, and the agent may write one with no question (only the user names
 * it to pip), so the card of the install shows what it holds: otherwise
 * "%pip install -r requirements.txt" reads as harmless whatever index the
 * file names.
 *
 * Pure but for `read`, which the caller gives (the files port); paths are
 * relative to the server root, requirement files to the folder they are
 * named from (the kernel's working folder is the notebook's).
 */
import { folderOf } from './runs-later';

/** Options that name where packages come from (pip's requirement-file and command-line spellings). */
const SOURCE_OPTIONS = new Set([
  '-i',
  '--index-url',
  '--extra-index-url',
  '-f',
  '--find-links',
  '--trusted-host'
]);

/** Options that name another requirement file (read in turn). */
const FILE_OPTIONS = new Set(['-r', '--requirement', '-c', '--constraint']);

/** A requirement that is a URL or a path (`pkg @ https://…`, `git+https://…`, `./wheels/x.whl`). */
const DIRECT = /(?:^|@\s*)(?:[a-z][a-z0-9+.-]*:\/\/|file:)\S*/i;

/** Requirement files read for one card, at most: a chain of `-r` is bounded. */
export const MAX_REQUIREMENT_FILES = 8;

/**
 * A line of code that runs pip's install: `%pip install`, `!pip install`,
 * `!python -m pip install`, `!{sys.executable} -m pip install`, `!uv pip
 * install`, and a bare `pip install` line (a `%%bash` cell's; in Python it
 * would not parse, so counting it shows no more than is there).
 */
const PIP_INSTALL =
  /^\s*(?:[%!]\s*)?(?:uv\s+)?(?:\S+\s+-m\s+)?pip3?(?:\s+\S+)*?\s+install\b(.*)$/;

/** One thing a card shows: the file or command it comes from, and the line. */
export interface IInstallSource {
  /** `requirements.txt`, or `the command` for the install line itself. */
  from: string;
  /** What it says (`--index-url https://…`), or why the file was not read. */
  text: string;
}

/** Words of a command or requirement line: whitespace-separated, quotes kept together, `#` comments dropped. */
function words(line: string): string[] {
  const found: string[] = [];
  const pattern = /"([^"]*)"|'([^']*)'|(\S+)/g;
  let match: RegExpExecArray | null;
  while ((match = pattern.exec(line))) {
    const word = match[1] ?? match[2] ?? match[3];
    if (match[3]?.startsWith('#')) {
      break;
    }
    found.push(word);
  }
  return found;
}

/** The sources and the files one list of words names (an install command's, or a requirement line's). */
function scan(
  list: string[],
  from: string
): { sources: IInstallSource[]; files: string[] } {
  const sources: IInstallSource[] = [];
  const files: string[] = [];
  for (let i = 0; i < list.length; i++) {
    const word = list[i];
    const [option, attached] = word.startsWith('--')
      ? [
          word.split('=')[0],
          word.includes('=') ? word.slice(word.indexOf('=') + 1) : undefined
        ]
      : /^-[icfr]./.test(word)
        ? [word.slice(0, 2), word.slice(2)]
        : [word, undefined];
    if (SOURCE_OPTIONS.has(option) || FILE_OPTIONS.has(option)) {
      const value = attached ?? list[++i];
      if (value === undefined) {
        continue;
      }
      if (SOURCE_OPTIONS.has(option)) {
        sources.push({ from, text: `${option} ${value}` });
      } else {
        files.push(value);
      }
    } else if (word === '--no-index') {
      sources.push({ from, text: word });
    } else if (DIRECT.test(word) || (word === '@' && list[i + 1])) {
      const text = word === '@' ? `${list[i - 1] ?? ''} @ ${list[++i]}` : word;
      sources.push({ from, text });
    }
  }
  return { sources, files };
}

/** The requirement lines of a file's text: continuations joined, comments and blanks dropped. */
function requirementLines(text: string): string[][] {
  return text
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .map(line => words(line))
    .filter(list => list.length > 0);
}

/**
 * What the pip installs in `code` fetch from besides the default index:
 * the options and URLs of its install lines and of the requirement files
 * they name (read with `read`, relative to `folder`), in order. Empty when
 * the code installs nothing, or only package names from the default index.
 */
export async function installSources(
  code: string,
  folder: string,
  read: (path: string) => Promise<string>
): Promise<IInstallSource[]> {
  const sources: IInstallSource[] = [];
  const queue: { path: string | null; shown: string }[] = [];
  for (const line of code.split(/\r?\n/)) {
    const install = PIP_INSTALL.exec(line);
    if (!install) {
      continue;
    }
    const found = scan(words(install[1]), 'the command');
    sources.push(...found.sources);
    for (const file of found.files) {
      queue.push({ path: resolveIn(folder, file), shown: file });
    }
  }
  const seen = new Set<string>();
  while (queue.length) {
    const { path, shown } = queue.shift()!;
    if (path === null) {
      sources.push({
        from: shown,
        text: 'not read (outside the server root): look at it before you run this'
      });
      continue;
    }
    if (seen.has(path)) {
      continue;
    }
    seen.add(path);
    if (seen.size > MAX_REQUIREMENT_FILES) {
      sources.push({
        from: shown,
        text: `not read: more than ${MAX_REQUIREMENT_FILES} requirement files`
      });
      break;
    }
    let text: string;
    try {
      text = await read(path);
    } catch (error) {
      sources.push({
        from: shown,
        text: `not read (${(error as Error).message}): look at it before you run this`
      });
      continue;
    }
    for (const list of requirementLines(text)) {
      const found = scan(list, shown);
      sources.push(...found.sources);
      for (const file of found.files) {
        // pip reads a nested file relative to the file that names it.
        queue.push({ path: resolveIn(folderOf(path), file), shown: file });
      }
    }
  }
  return sources;
}

/**
 * `file` (as pip is given it) resolved against `folder` (root-relative),
 * or null where it leaves the root or is absolute (the kernel's absolute
 * paths are not the server's).
 */
function resolveIn(folder: string, file: string): string | null {
  if (/^(?:[\\/]|~|[A-Za-z]:)/.test(file)) {
    return null;
  }
  const parts = folder ? folder.split('/') : [];
  for (const part of file.split(/[\\/]+/)) {
    if (part === '..') {
      if (!parts.length) {
        return null;
      }
      parts.pop();
    } else if (part && part !== '.') {
      parts.push(part);
    }
  }
  return parts.join('/');
}
