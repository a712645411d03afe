/**
 * MCP tools as agent tools, and the store that keeps the server's listing.
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
 * auto-approved one never asks).
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
import { ValueStore } from '../value-store';

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

/** What the sidebar shows of the MCP servers. */
export interface IMcpSnapshot {
  listing: IMcpListing | null;
  /** Why the listing could not be read (the server is older, or gone). */
  error: string | null;
  loading: boolean;
}

/**
 * The Jupyter server's MCP listing, kept for the runs and the sidebar:
 * read at start and on `refresh()` (the sidebar's Refresh, and after a call
 * failed, so a crashed server shows at once).
 */
export class McpToolSource {
  constructor(private readonly _client: IMcpClient) {}

  /** Read the listing again (starts servers not yet started). */
  async refresh(): Promise<void> {
    this._set({ ...this._snapshot, loading: true });
    try {
      const listing = await this._client.listServers();
      this._tools = null;
      this._set({ listing, error: null, loading: false });
    } catch (error) {
      this._set({
        ...this._snapshot,
        error: (error as Error).message ?? String(error),
        loading: false
      });
    }
  }

  /** The tools of the connected servers, for the next run. */
  toolSet(): IExtraTools {
    this._tools ??= this._wrap(mcpTools(this._snapshot.listing, this._client));
    return this._tools;
  }

  /** The current state (a new object after each change). */
  getSnapshot = (): IMcpSnapshot => this._store.getSnapshot();

  /** Call `listener` after each change; returns the unsubscribe function. */
  subscribe = (listener: () => void): (() => void) =>
    this._store.subscribe(listener);

  /** The tools, refreshing the listing after a failed call (a crash shows at once). */
  private _wrap(set: IExtraTools): IExtraTools {
    const tools = set.tools.map((tool): ITool<never> => ({
      ...tool,
      execute: async (args, context) => {
        const result = await tool.execute(args, context);
        if (!result.ok && !context.signal.aborted) {
          void this.refresh();
        }
        return result;
      }
    }));
    return { tools };
  }

  private _set(snapshot: IMcpSnapshot): void {
    this._store.set(snapshot);
  }

  private get _snapshot(): IMcpSnapshot {
    return this._store.getSnapshot();
  }

  private readonly _store = new ValueStore<IMcpSnapshot>({
    listing: null,
    error: null,
    loading: false
  });
  private _tools: IExtraTools | null = null;
}
