/**
 * Asks the server where a path really leads (notebook-agent/path-check)
 * before the agent reads it: a symbolic link under the root could point at
 * ~/.ssh, and the contents API would follow it. Used by both ports (the
 * live notebook in the browser and the headless runner in Node): it needs
 * only @jupyterlab/services.
 */
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';
import { NotebookPortError } from '../agent/ports';

/** Throws a NotebookPortError when `path` resolves outside the server root. */
export async function assertInsideRoot(
  settings: ServerConnection.ISettings,
  path: string
): Promise<void> {
  const url = URLExt.join(settings.baseUrl, 'notebook-agent', 'path-check');
  const response = await ServerConnection.makeRequest(
    `${url}?path=${encodeURIComponent(path)}`,
    {},
    settings
  );
  if (!response.ok) {
    // An older server without the route: the tools' own path rules still apply.
    return;
  }
  const body = (await response.json()) as { inside?: boolean };
  if (body.inside === false) {
    throw new NotebookPortError(
      `Refused: ${path} is a link to a place outside the Jupyter server's root directory, which the agent may not read.`
    );
  }
}
