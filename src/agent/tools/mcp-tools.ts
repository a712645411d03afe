/**
 * MCP tools as agent tools, made from the Jupyter server's listing.
 *
 * Each listed tool becomes an `ITool` named `<server>__<tool>` with its
 * JSON schema, which the model reads as it is; the registry checks the
 * arguments with ajv against a bounded copy (bounded-schema.ts: no regular
 * expressions, no exponential references), the Jupyter server against the
 * whole schema in a bounded worker. Calls go to
 * the Jupyter server (`IMcpClient`), which runs the MCP servers; Stop aborts
 * the request, which cancels the call there. Every call asks the user first
 * unless the server's config auto-approves the tool: the tool says so itself
 * (`asksAlways`; tools are `read` for the approval mode, so an
 * auto-approved one never asks). The listing itself is kept by
 * ./mcp-listing.ts.
 */
import { mcpObservation } from '../context/mcp-results';
import { boundedSchema } from './bounded-schema';
import { defineTool, type ITool } from './registry';
import type {
  IMcpClient,
  IMcpListing,
  IMcpServerInfo,
  IMcpToolInfo
} from './mcp-types';
import { McpListing } from './mcp-listing';

/** Tools a run gets besides the built-in ones. */
export interface IExtraTools {
  tools: ReadonlyArray<ITool<never>>;
}

/** No extra tools. */
export const NO_EXTRA_TOOLS: IExtraTools = { tools: [] };

/** The agent tool of one listed MCP tool. */
export function mcpTool(
  server: IMcpServerInfo,
  info: IMcpToolInfo,
  client: IMcpClient
): ITool<never> {
  const what = info.description.trim() || info.title || info.tool;
  return defineTool<Record<string, unknown>>({
    name: info.name,
    // Words, not the internal `<server>__<tool>` name.
    title: `Use ${info.tool} from ${server.name}`,
    kind: 'read',
    asksAlways: !info.auto_approve,
    description: `${what} (tool "${info.tool}" of the MCP server "${server.name}")`,
    parameters: info.input_schema,
    // A hostile schema ("pattern": "^(a+)+$") must not freeze the tab.
    argumentSchema: boundedSchema(info.input_schema),
    async execute(args, { signal }) {
      if (signal.aborted) {
        return { ok: false, output: 'Not run: the user stopped the agent.' };
      }
      let answer;
      try {
        answer = await client.call(info.name, args ?? {}, signal);
      } catch (error) {
        if (signal.aborted) {
          return { ok: false, output: 'Stopped: the user stopped the agent.' };
        }
        answer = {
          ok: false as const,
          type: 'unreachable',
          message: (error as Error).message ?? String(error)
        };
      }
      return mcpObservation(info.name, answer);
    }
  }) as ITool<never>;
}

/** The tools of the connected servers of `listing`. */
export function mcpTools(
  listing: IMcpListing | null,
  client: IMcpClient
): IExtraTools {
  if (!listing) {
    return NO_EXTRA_TOOLS;
  }
  const tools: ITool<never>[] = [];
  for (const server of listing.servers) {
    if (server.status !== 'connected') {
      continue;
    }
    for (const info of server.tools) {
      tools.push(mcpTool(server, info, client));
    }
  }
  return { tools };
}

/**
 * The tools of `listing`'s connected servers, for each run: made again
 * when the listing changes; a failed call reads the listing again (a
 * crashed server shows at once).
 */
export function mcpToolSet(listing: McpListing): () => IExtraTools {
  let made: { from: IMcpListing | null; tools: IExtraTools } | null = null;
  return () => {
    const from = listing.getSnapshot().listing;
    if (made?.from !== from) {
      made = { from, tools: refreshOnFailure(mcpTools(from, listing.client)) };
    }
    return made.tools;
  };

  function refreshOnFailure(set: IExtraTools): IExtraTools {
    const tools = set.tools.map((tool): ITool<never> => ({
      ...tool,
      execute: async (args, context) => {
        const result = await tool.execute(args, context);
        if (!result.ok && !context.signal.aborted) {
          void listing.refresh();
        }
        return result;
      }
    }));
    return { tools };
  }
}

/** The MCP listing with its tools, for the command line (the browser keeps the two apart). */
export class McpToolSource extends McpListing {
  /** The tools of the connected servers, for the next run. */
  readonly toolSet = mcpToolSet(this);
}

export type { IMcpSnapshot } from './mcp-listing';
