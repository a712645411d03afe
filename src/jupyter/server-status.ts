/**
 * Asks the server extension what it is configured with (never the key), so
 * the sidebar can say up front when no model endpoint is set.
 */
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';

/** What the sidebar knows of the server's model configuration. */
export type ServerStatus =
  | {
      kind: 'configured';
      baseUrl: string;
      model: string | null;
      hasKey: boolean;
    }
  | { kind: 'not-configured' }
  | { kind: 'no-extension' }
  | { kind: 'unknown' };

/** Fetch the server's configuration. */
export async function fetchServerStatus(
  serverSettings: ServerConnection.ISettings
): Promise<ServerStatus> {
  const url = URLExt.join(serverSettings.baseUrl, 'notebook-agent', 'config');
  try {
    const response = await ServerConnection.makeRequest(
      url,
      {},
      serverSettings
    );
    if (response.status === 404) {
      return { kind: 'no-extension' };
    }
    if (!response.ok) {
      return { kind: 'unknown' };
    }
    const data = (await response.json()) as {
      configured: boolean;
      base_url: string | null;
      model: string | null;
      has_key: boolean;
    };
    return data.configured
      ? {
          kind: 'configured',
          baseUrl: data.base_url ?? '',
          model: data.model,
          hasKey: data.has_key
        }
      : { kind: 'not-configured' };
  } catch {
    return { kind: 'unknown' };
  }
}
