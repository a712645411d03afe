/**
 * Asks the server extension what it is configured with (never a key), so
 * the sidebar can say up front when no model endpoint is set, list the
 * providers to pick from, and store a user's key on the server.
 */
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';
import type { TranslationBundle } from '@jupyterlab/translation';
import type {
  IFoundServer,
  IProviderInfo
} from '../../agent/model/provider-info';
import type { ServerStatus } from '../../components/config/sidebar-config';

// The sidebar's views read these types; they are defined with the views.
export type { IProviderInfo, ServerStatus };

interface IConfigReply {
  configured: boolean;
  base_url: string | null;
  model: string | null;
  has_key: boolean;
  default_provider?: string | null;
  allow_user_keys?: boolean;
  providers?: Array<{
    name: string;
    kind: string;
    base_url: string;
    models?: string[];
    default_model?: string | null;
    has_key: boolean;
    key_source?: string | null;
    /** False for a key-less endpoint (no "Set API key…"); absent from older servers. */
    takes_key?: boolean;
  }>;
  discovery?: {
    enabled: boolean;
    servers?: Array<{
      provider: string;
      label: string;
      port: number;
      models: string[];
    }>;
  };
}

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
    const data = (await response.json()) as IConfigReply;
    const discovery = data.discovery?.enabled ?? false;
    if (!data.configured) {
      return { kind: 'not-configured', discovery };
    }
    const found = new Map(
      (data.discovery?.servers ?? []).map(server => [server.provider, server])
    );
    return {
      kind: 'configured',
      baseUrl: data.base_url ?? '',
      model: data.model,
      hasKey: data.has_key,
      defaultProvider: data.default_provider ?? null,
      allowUserKeys: data.allow_user_keys ?? false,
      discovery,
      providers: (data.providers ?? []).map(p => ({
        name: p.name,
        kind: p.kind,
        baseUrl: p.base_url,
        models: p.models ?? [],
        defaultModel: p.default_model ?? null,
        hasKey: p.has_key,
        keySource: p.key_source ?? null,
        takesKey: p.takes_key ?? true,
        found: foundServer(found.get(p.name))
      }))
    };
  } catch {
    return { kind: 'unknown' };
  }
}

function foundServer(
  server: { label: string; port: number; models: string[] } | undefined
): IFoundServer | null {
  return server
    ? { label: server.label, port: server.port, models: server.models }
    : null;
}

/** Store the user's key for `provider` on the server (never kept in the browser). */
export async function storeProviderKey(
  serverSettings: ServerConnection.ISettings,
  provider: string,
  apiKey: string,
  trans: TranslationBundle
): Promise<void> {
  const url = URLExt.join(
    serverSettings.baseUrl,
    'notebook-agent',
    'keys',
    encodeURIComponent(provider)
  );
  const response = await ServerConnection.makeRequest(
    url,
    { method: 'PUT', body: JSON.stringify({ api_key: apiKey }) },
    serverSettings
  );
  if (!response.ok) {
    const reply = (await response.json().catch(() => ({}))) as {
      error?: { message?: string };
    };
    throw new Error(
      reply.error?.message ??
        trans.__(
          'The server refused to store the key (%1).',
          String(response.status)
        )
    );
  }
}

/** The models a provider offers, from the proxy's `/models` (empty when it does not answer). */
export async function fetchProviderModels(
  serverSettings: ServerConnection.ISettings,
  provider: string
): Promise<string[]> {
  const url = URLExt.join(
    serverSettings.baseUrl,
    'notebook-agent',
    'v1',
    'models'
  );
  try {
    const response = await ServerConnection.makeRequest(
      url,
      { headers: { 'X-Notebook-Agent-Provider': provider } },
      serverSettings
    );
    if (!response.ok) {
      return [];
    }
    const data = (await response.json()) as { data?: Array<{ id?: string }> };
    return (data.data ?? []).map(model => model.id ?? '').filter(Boolean);
  } catch {
    return [];
  }
}
