/**
 * The Jupyter server's MCP routes over `@jupyterlab/services`, for the
 * sidebar (browser) and the CLI (Node) alike: one implementation, and the
 * MCP servers, their keys and their subprocesses stay on the server.
 */
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';
import type {
  IMcpClient,
  IMcpListing,
  IMcpResult,
  McpCallAnswer
} from '../agent/tools/mcp-types';

/** The listing of a server without MCP servers (or without the routes). */
export const EMPTY_LISTING: IMcpListing = {
  servers: [],
  errors: [],
  user_servers_allowed: false
};

/** `IMcpClient` for the Jupyter server of `settings`. */
export class ServerMcpClient implements IMcpClient {
  constructor(private readonly _settings: ServerConnection.ISettings) {}

  async listServers(signal?: AbortSignal): Promise<IMcpListing> {
    // A POST: listing starts the servers not yet started (their commands
    // run), which a GET must not do.
    const response = await ServerConnection.makeRequest(
      this._url('servers'),
      { method: 'POST', body: '{}', signal },
      this._settings
    );
    if (response.status === 404) {
      return EMPTY_LISTING; // an older server extension: no MCP tools
    }
    if (!response.ok) {
      throw new Error(
        `the Jupyter server answered ${response.status} for its MCP servers`
      );
    }
    const listing = (await response.json()) as IMcpListing;
    return Array.isArray(listing?.servers) ? listing : EMPTY_LISTING;
  }

  async call(
    name: string,
    args: Record<string, unknown>,
    signal: AbortSignal
  ): Promise<McpCallAnswer> {
    const response = await ServerConnection.makeRequest(
      this._url('call'),
      {
        method: 'POST',
        body: JSON.stringify({ name, arguments: args }),
        signal
      },
      this._settings
    );
    let body: unknown = null;
    try {
      body = await response.json();
    } catch {
      // Not JSON (a proxy's error page): said below.
    }
    if (response.ok && body && typeof body === 'object' && 'content' in body) {
      return { ok: true, result: body as IMcpResult };
    }
    const error = (body as { error?: { message?: unknown; type?: unknown } })
      ?.error;
    return {
      ok: false,
      type: typeof error?.type === 'string' ? error.type : 'unreachable',
      message:
        typeof error?.message === 'string'
          ? error.message
          : `the Jupyter server answered ${response.status}`
    };
  }

  private _url(route: string): string {
    return URLExt.join(this._settings.baseUrl, 'notebook-agent', 'mcp', route);
  }
}
