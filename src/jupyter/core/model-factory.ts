/**
 * Builds the model client from the settings.
 *
 * Proxy mode (the default) talks to the Jupyter server's own proxy, which
 * adds the key; requests carry Jupyter's auth and XSRF headers like every
 * other JupyterLab request. Direct mode calls the endpoint from the browser.
 * Local mode runs a model in the browser (../local-model/local-model-factory.ts).
 */
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';
import { DirectFetchError, ModelConfigError } from '../../agent/model/errors';
import type { FetchLike } from '../../agent/model/fetch-like';
import type { IModelClient } from '../../agent/model/types';
import { LazyLocalModel } from '../local-model/lazy-local-model';
import { LazyOpenAIClient } from './lazy-openai-client';
import type { IAgentSettings } from '../config/settings';

/** Header with which proxy mode selects one of the server's allowed endpoints. */
const BASE_URL_HEADER = 'X-Notebook-Agent-Base-Url';

/** Header with which proxy mode picks one of the server's providers. */
const PROVIDER_HEADER = 'X-Notebook-Agent-Provider';

/** The proxy's base URL on this Jupyter server. */
export function proxyBaseUrl(
  serverSettings: ServerConnection.ISettings
): string {
  return URLExt.join(serverSettings.baseUrl, 'notebook-agent', 'v1');
}

/** A fetch that authenticates to the Jupyter server the way JupyterLab does. */
export function jupyterFetch(
  serverSettings: ServerConnection.ISettings
): FetchLike {
  return (input, init) => {
    const headers = new Headers(init?.headers);
    // The client's placeholder key must not reach Jupyter's auth; the proxy adds the real one.
    headers.delete('Authorization');
    const url =
      typeof input === 'string'
        ? input
        : input instanceof URL
          ? input.href
          : input.url;
    return ServerConnection.makeRequest(
      url,
      { ...init, headers },
      serverSettings
    );
  };
}

/**
 * Create the client for the current settings; throws `ModelConfigError`
 * when it cannot. `onWait`: told while a server reads a chat request's
 * prompt (`IOpenAIClientOptions.onWait`; the in-browser model says it itself).
 */
export function createModelClient(
  settings: IAgentSettings,
  serverSettings: ServerConnection.ISettings,
  onWait?: (since: number | null) => void
): IModelClient {
  if (settings.endpointMode === 'local') {
    // A model in this browser tab; its code loads on the first turn.
    return new LazyLocalModel(settings);
  }
  if (settings.endpointMode === 'direct') {
    if (!settings.baseUrl) {
      throw new ModelConfigError(
        'Direct mode is selected but no base URL is set.',
        'Set "Base URL" (for example https://api.openai.com/v1) in Settings > Settings Editor > ' +
          'Notebook Agent, or set "Endpoint mode" back to "proxy" to use the Jupyter server’s endpoint.'
      );
    }
    const azure = settings.directApi === 'azure';
    if (azure && !settings.azureDeployment) {
      throw new ModelConfigError(
        'Direct mode uses Azure OpenAI but no deployment is set.',
        'Set "Azure deployment" in Settings > Settings Editor > Notebook Agent.'
      );
    }
    if (!settings.model && !azure) {
      throw new ModelConfigError(
        'Direct mode is selected but no model is set.',
        'Set "Model" in Settings > Settings Editor > Notebook Agent.'
      );
    }
    const baseUrl = settings.baseUrl;
    return new LazyOpenAIClient({
      baseURL: baseUrl,
      idleTimeoutMs: settings.modelIdleTimeoutSeconds * 1000,
      onWait,
      model: settings.model || settings.azureDeployment,
      apiKey: settings.apiKey,
      ...(azure
        ? {
            azure: {
              deployment: settings.azureDeployment,
              apiVersion: settings.azureApiVersion
            }
          }
        : {}),
      // A TypeError from fetch here is CORS or a dead server: say which fixes apply.
      fetch: (input, init) =>
        fetch(input, init).catch(error => {
          throw init?.signal?.aborted
            ? error
            : new DirectFetchError(baseUrl, error);
        })
    });
  }
  return new LazyOpenAIClient({
    baseURL: proxyBaseUrl(serverSettings),
    idleTimeoutMs: settings.modelIdleTimeoutSeconds * 1000,
    onWait,
    model: settings.model,
    headers: {
      ...(settings.baseUrl ? { [BASE_URL_HEADER]: settings.baseUrl } : {}),
      ...(settings.provider ? { [PROVIDER_HEADER]: settings.provider } : {})
    },
    fetch: jupyterFetch(serverSettings)
  });
}
