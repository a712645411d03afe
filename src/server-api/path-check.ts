/**
 * Asks the server where a path really leads (notebook-agent/path-check)
 * before the agent reads or lists it: a symbolic link under the root could
 * point at ~/.ssh or at .env, and the contents API would follow it. Used by
 * both ports (the live notebook in the browser and the headless runner in
 * Node): it needs only @jupyterlab/services.
 */
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';
import { NotebookPortError, type IFileEntry } from '../agent/ports';

/** What the route answers (jupyterlab_notebook_agent/path_check.py). */
interface IPathVerdict {
  checked?: boolean;
  allowed?: boolean;
  inside?: boolean;
  hidden?: boolean;
  reason?: 'outside' | 'hidden' | null;
  /** Bytes of the file the path leads to (a link followed); null otherwise. */
  size?: number | null;
  /** Where an allowed path really is, links followed, relative to the root. */
  real?: string | null;
  /** How many names (hard links) the file has, links followed; null for no file. */
  links?: number | null;
  hidden_entries?: string[];
  error?: { message?: string };
}

/**
 * Throws a NotebookPortError when `path` resolves outside the server root,
 * or when it (or where a link leads) is hidden, such as `.env` or `~/.ssh`.
 * Returns the size of the file it leads to (links followed: the contents
 * API lists a link with the link's own size), or null when the server does
 * not say (a folder, nothing there, an older server).
 */
export async function assertInsideRoot(
  settings: ServerConnection.ISettings,
  path: string
): Promise<number | null> {
  return (await checkedPlace(settings, path)).size;
}

/** Where an allowed path leads: its file's size, and its real path. */
export interface ICheckedPlace {
  /** Bytes of the file it leads to; null for a folder, nothing there, an older server. */
  size: number | null;
  /**
   * Where it really is, links followed, relative to the root
   * (`helpers/x.py` → `venv/lib/python3.11/site-packages/x.py`); null when
   * the server does not say.
   */
  real: string | null;
  /**
   * How many names (hard links) the file it leads to has; null for no file
   * there, a folder, an older server (write_file refuses more than one:
   * agent/tools/write-landing.ts).
   */
  links: number | null;
}

/** Checks `path` like {@link assertInsideRoot}, and answers where it leads. */
export async function checkedPlace(
  settings: ServerConnection.ISettings,
  path: string
): Promise<ICheckedPlace> {
  const verdict = await Private.verdict(settings, path, false);
  return {
    size: typeof verdict?.size === 'number' ? verdict.size : null,
    real: typeof verdict?.real === 'string' ? verdict.real : null,
    links: typeof verdict?.links === 'number' ? verdict.links : null
  };
}

/**
 * `entries` of the directory `dir` without those that are links to a hidden
 * path (`notes.txt -> .env`): list_files never shows them. Throws like
 * {@link assertInsideRoot} when `dir` itself is refused.
 */
export async function withoutHiddenEntries(
  settings: ServerConnection.ISettings,
  dir: string,
  entries: IFileEntry[]
): Promise<IFileEntry[]> {
  const verdict = await Private.verdict(settings, dir, true);
  const hidden = new Set(verdict?.hidden_entries ?? []);
  if (!hidden.size) {
    return entries;
  }
  return entries.filter(entry => !hidden.has(entry.path.split('/').pop()!));
}

namespace Private {
  /** The route's answer for `path` (null from a server without the route); throws when refused. */
  export async function verdict(
    settings: ServerConnection.ISettings,
    path: string,
    entries: boolean
  ): Promise<IPathVerdict | null> {
    const url = URLExt.join(settings.baseUrl, 'notebook-agent', 'path-check');
    const query = `?path=${encodeURIComponent(path)}${entries ? '&entries=1' : ''}`;
    const response = await ServerConnection.makeRequest(
      url + query,
      {},
      settings
    );
    if (response.status === 404) {
      // An older server without the route: the tools' own path rules still apply.
      return null;
    }
    const body = (await response.json().catch(() => ({}))) as IPathVerdict;
    if (!response.ok) {
      throw new NotebookPortError(
        `Refused: the Jupyter server could not check where ${path} leads ` +
          `(HTTP ${response.status}${body.error?.message ? `: ${body.error.message}` : ''}).`
      );
    }
    if (body.inside === false) {
      throw new NotebookPortError(
        `Refused: ${path} is a link to a place outside the Jupyter server's root directory (or lies outside it), which the agent may not read.`
      );
    }
    if (body.hidden === true) {
      throw new NotebookPortError(
        `Refused: ${path} is hidden or is a link to a hidden file or folder (a name starting with ".", such as .env or .ssh), which the agent may not read.`
      );
    }
    return body;
  }
}
