/**
 * Project rules (AGENTS.md) read through a Jupyter server's contents API:
 * the one reader of the sidebar (in the browser) and the command line (in
 * Node). The finding, ordering and cap are the agent core's
 * (agent/context/project-rules.ts); this adds what the server knows: a
 * file that is a link to a place outside the root is not read
 * (path-check), and a huge file is not downloaded.
 *
 * The listing's size is the size of the entry itself: for a link, that of
 * the link ("7 B"), not of the file it leads to; the path check answers the
 * size of the file it leads to, and that decides. Against an older server
 * without it, the cap is applied again to what was actually read.
 */
import type { Contents, ServerConnection } from '@jupyterlab/services';
import {
  findProjectRules,
  type IProjectRules,
  type RuleReader
} from '../agent/context/project-rules';
import { assertInsideRoot } from './path-check';

/** Files larger than this are not downloaded (they would be cut to the cap anyway). */
const MAX_DOWNLOAD_BYTES = 256 * 1024;

/** Reads rules files on the server of `contents` (and `settings`). */
export function serverRuleReader(
  contents: Contents.IManager,
  settings: ServerConnection.ISettings
): RuleReader {
  return async path => {
    // The folder's listing, not the file itself: a folder without rules is
    // then no 404 (no warning in the server's log at every prompt).
    const slash = path.lastIndexOf('/');
    const name = path.slice(slash + 1);
    let entry: Contents.IModel | undefined;
    try {
      const folder = await contents.get(slash < 0 ? '' : path.slice(0, slash), {
        content: true
      });
      entry = Array.isArray(folder.content)
        ? (folder.content as Contents.IModel[]).find(item => item.name === name)
        : undefined;
    } catch {
      // The folder is gone, or the server will not show it: no rules.
      return null;
    }
    if (entry?.type !== 'file') {
      return null;
    }
    // Throws for a link that leads outside the root: the file is skipped.
    // Its answer has the size of the file a link leads to.
    const resolved = await assertInsideRoot(settings, path);
    const size =
      resolved ?? (typeof entry.size === 'number' ? entry.size : null);
    if (size !== null && size > MAX_DOWNLOAD_BYTES) {
      return { text: '', bytes: size };
    }
    const file = await contents.get(path, {
      type: 'file',
      format: 'text',
      content: true
    });
    const text = typeof file.content === 'string' ? file.content : '';
    const bytes = new TextEncoder().encode(text).length;
    if (bytes > MAX_DOWNLOAD_BYTES) {
      // A link listed small: left out like a file listed large.
      return { text: '', bytes };
    }
    return { text, bytes };
  };
}

/** The project rules of `notebookPath` on the server (see findProjectRules). */
export function readProjectRules(
  contents: Contents.IManager,
  settings: ServerConnection.ISettings,
  notebookPath: string,
  budget?: number
): Promise<IProjectRules> {
  return findProjectRules(
    notebookPath,
    serverRuleReader(contents, settings),
    budget
  );
}
