/**
 * Where a `write_file` really lands, and what that place does later.
 *
 * The rule for files that run later (./runs-later.ts) reads paths only. A
 * folder link inside the root makes a harmless name lead somewhere else:
 * with `helpers -> proj` and the notebook in `proj/`, `helpers/requests.py`
 * is really `proj/requests.py`, which the notebook's `import requests` then
 * loads in place of the library. The notebook's own folder may be named
 * through a link too (the kernel imports from its real folder). So a write
 * is judged on the name given and on its real place, each against the
 * notebook's folder as named and as it really is:
 *
 * - the real place asks more than the name shows, or as much for another
 *   reason (any Python code asks, but a module that a link leads next to
 *   the notebook is imported in place of the library of its name):
 *   refused, naming the real place, so that the agent writes it there and
 *   the card says why (the user never approves one path that writes
 *   another);
 * - otherwise the name's verdict stands (it already counts the notebook's
 *   real folder).
 *
 * A hard link is not a place a path leads to: `notes/hl.txt` and
 * `venv/pip.conf` are one file, which `realpath` cannot see, and Jupyter's
 * save rewrites it in place, so replacing one name changes the other. The
 * server counts a file's names; a file with more than one is refused in
 * every mode (the other names, possibly outside the root, are not known,
 * so no card could say what the write changes).
 *
 * The tool judges in its preview (before anyone is asked); the ports judge
 * again when they write (src/kernel/files.ts), since a link can change
 * between the two.
 */
import type { INotebookPort } from '../ports';
import {
  askRank,
  folderOf,
  runsLaterNear,
  type IRunsLater
} from './runs-later';

/**
 * A port that can say where a root-relative path really leads (links
 * followed; the ports over a Jupyter server ask its path check). Null when
 * it cannot tell (an older server): the name given is all there is.
 */
export interface IRealPlaces {
  realPlace(path: string): Promise<string | null>;
  /**
   * How many names (hard links) the file at `path` has, symbolic links
   * followed; null for no file there, or when the port cannot tell (an
   * older server: a write is then judged as before).
   */
  fileLinks?(path: string): Promise<number | null>;
}

/** Whether the port can say where paths really lead (the fake notebook cannot). */
export function canResolve(port: object): port is IRealPlaces {
  return typeof (port as Partial<IRealPlaces>).realPlace === 'function';
}

/** A write's places: the name given and where it leads, and the notebook's. */
export interface IWritePlaces {
  /** The path as the model gave it (checked by `rootPath`). */
  path: string;
  /** Where it really is, links followed; null when not known. */
  real: string | null;
  /** The open notebook's path, as named. */
  notebookPath: string;
  /** Where the notebook's folder really is; null when not known. */
  realNotebookFolder: string | null;
  /** How many names the file there has (hard links); null or absent when not known. */
  links?: number | null;
}

/** A write's verdict: ask (or not) as `later` says, or refused. */
export type Landing =
  { later: IRunsLater | null } | { refused: string; later: IRunsLater | null };

/** Pure: the verdict for a write, from its places. */
export function judgeLanding(places: IWritePlaces): Landing {
  const folders = [folderOf(places.notebookPath)];
  if (places.realNotebookFolder !== null) {
    folders.push(places.realNotebookFolder);
  }
  const asNamed = runsLaterNear(places.path, folders);
  if ((places.links ?? 1) > 1) {
    return {
      refused: hardLinkRefusal(places.path, places.links!),
      later: asNamed
    };
  }
  const { real } = places;
  if (real === null || real === places.path) {
    return { later: asNamed };
  }
  const atReal = runsLaterNear(real, folders);
  if (
    atReal &&
    (askRank(atReal) > askRank(asNamed) ||
      (askRank(atReal) === askRank(asNamed) &&
        atReal.reason !== asNamed?.reason))
  ) {
    return { refused: linkRefusal(places.path, real, atReal), later: atReal };
  }
  return { later: asNamed };
}

/** Why a write through a link was not made, and how to make it where the user is asked. */
export function linkRefusal(
  path: string,
  real: string,
  later: IRunsLater
): string {
  return (
    `Refused: ${path} leads through a link to ${real}, and ${later.reason}. ` +
    `Nothing was written; to write it there, use the path ${real}, which the user is asked to approve.`
  );
}

/** Why a file with other names (hard links) was not replaced, and what to do instead. */
export function hardLinkRefusal(path: string, links: number): string {
  return (
    `Refused: ${path} is a hard link: the file has ${links} names, and the others, which write_file cannot see ` +
    '(one may be a configuration file elsewhere, such as a pip.conf), would change with it. ' +
    'Nothing was written; write a new file under another name, or remove the link first if this one must change.'
  );
}

/**
 * The verdict for writing `path` on `notebook`: the port is asked where the
 * path and the notebook's folder really lead when it can tell. A refusal of
 * the path itself (a link out of the root or to a hidden file) is thrown, as
 * the write would; the notebook's folder unresolved is judged as named; a
 * file with more than one name is refused.
 */
export async function landingOf(
  notebook: INotebookPort,
  path: string
): Promise<Landing> {
  if (!canResolve(notebook)) {
    return judgeLanding({
      path,
      real: null,
      notebookPath: notebook.path,
      realNotebookFolder: null
    });
  }
  const real = await notebook.realPlace(path);
  const realNotebookFolder = await notebook
    .realPlace(folderOf(notebook.path))
    .catch(() => null);
  const links = notebook.fileLinks ? await notebook.fileLinks(path) : null;
  return judgeLanding({
    path,
    real,
    notebookPath: notebook.path,
    realNotebookFolder,
    links
  });
}
