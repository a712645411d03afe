/**
 * MCP tools for a command-line run: the tools of the Jupyter server's MCP
 * servers, listed once before the run (the server starts them), through the
 * same routes as the sidebar. Servers that are down are reported on stderr.
 */
import type { ServerConnection } from '@jupyterlab/services';
import {
  mcpTools,
  NO_EXTRA_TOOLS,
  type IExtraTools
} from '../../agent/tools/mcp-tools';
import { ServerMcpClient } from '../../server-api/mcp-client';

/** The MCP tools of the server of `settings` (none when it has none, or fails to list them). */
export async function cliMcpTools(
  settings: ServerConnection.ISettings,
  err: (line: string) => void
): Promise<IExtraTools> {
  const client = new ServerMcpClient(settings);
  try {
    const listing = await client.listServers();
    for (const server of listing.servers) {
      if (server.status !== 'connected') {
        err(
          `notebook-agent: MCP server ${server.name} is ${server.status}: ${server.error ?? 'no reason given'}`
        );
      }
    }
    return mcpTools(listing, client);
  } catch (error) {
    err(
      `notebook-agent: the MCP servers could not be listed (${(error as Error).message}); running without them`
    );
    return NO_EXTRA_TOOLS;
  }
}
