/**
 * Asks the Jupyter server to look again for model servers on its machine
 * (Ollama, LM Studio, llama.cpp, vLLM on loopback), as it does at start-up
 * when no endpoint is configured: when the provider picker opens, or when
 * the user asks from the local-model notice. What it finds comes back as
 * providers in `notebook-agent/config`.
 */
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';

/** Ask the server to look again; resolves once it has (never rejects). */
export async function lookAgainForLocalServers(
  serverSettings: ServerConnection.ISettings
): Promise<void> {
  const url = URLExt.join(
    serverSettings.baseUrl,
    'notebook-agent',
    'discovery'
  );
  try {
    await ServerConnection.makeRequest(url, { method: 'POST' }, serverSettings);
  } catch {
    // The server is unreachable: the status refresh that follows says so.
  }
}

/**
 * One look at a time: a picker focused again while the server is still
 * looking waits for that look instead of starting another.
 */
export function localServerLooker(
  serverSettings: ServerConnection.ISettings,
  refresh: () => Promise<void>
): () => Promise<void> {
  let looking: Promise<void> | null = null;
  return () => {
    looking ??= lookAgainForLocalServers(serverSettings)
      .then(refresh)
      .finally(() => {
        looking = null;
      });
    return looking;
  };
}
