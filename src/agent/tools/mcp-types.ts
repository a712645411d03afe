/**
 * The shapes of the Jupyter server's MCP routes (jupyterlab_notebook_agent/
 * mcp_handlers.py), and the client the agent reaches them through. MCP
 * servers run on the Jupyter server only: the browser and the CLI name a
 * listed tool, never a command or a URL.
 */

/** One tool of an MCP server, as listed (`POST notebook-agent/mcp/servers`). */
export interface IMcpToolInfo {
  /** The name the model calls: `<server>__<tool>`. */
  name: string;
  /** The tool's own name on its server. */
  tool: string;
  title?: string | null;
  description: string;
  /** JSON schema of the arguments object. */
  input_schema: Record<string, unknown>;
  /** Called without asking the user (the server's `auto_approve` config). */
  auto_approve: boolean;
}

/** Where a server stands: started on first use, restarted after a crash. */
export type McpServerStatus =
  'idle' | 'starting' | 'connected' | 'failed' | 'crashed' | 'stopped';

/** One configured MCP server. */
export interface IMcpServerInfo {
  name: string;
  transport: 'stdio' | 'http';
  /** `config`: the admin's; `user`: the user's own mcp.json. */
  source: 'config' | 'user';
  status: McpServerStatus;
  /** Why it failed or stopped (never a secret). */
  error: string | null;
  /** What went wrong with its last call (a timeout, garbage, a crash); null after a good one. */
  notice?: string | null;
  restarts: number;
  /** Seconds a call may take. */
  timeout: number;
  tools: IMcpToolInfo[];
  /** Tools not offered to the model, with why. */
  skipped_tools: string[];
}

/** The answer of `notebook-agent/mcp/servers` (GET: as they are; POST: started first). */
export interface IMcpListing {
  servers: IMcpServerInfo[];
  /** Configured entries that were ignored, with why. */
  errors: string[];
  user_servers_allowed: boolean;
}

/** One part of a tool result. */
export type McpContent =
  | { type: 'text'; text: string; truncated?: number }
  | { type: 'image'; mime_type: string; data?: string; bytes?: number }
  | {
      type: 'resource';
      uri: string;
      mime_type?: string | null;
      text?: string;
      bytes?: number;
      truncated?: number;
    }
  | { type: 'resource_link'; uri: string; name: string }
  | { type: 'audio'; mime_type: string; bytes: number }
  | { type: 'unknown' };

/** A tool result (`POST notebook-agent/mcp/call`, status 200). */
export interface IMcpResult {
  name: string;
  /** The tool itself reports a failure. */
  is_error: boolean;
  content: McpContent[];
  structured?: unknown;
}

/**
 * A call's outcome: the result, or why there is none. `type` is the
 * server's: `mcp_timeout`, `mcp_crashed`, `mcp_failed`, `mcp_invalid`,
 * `invalid_arguments`, `unknown_tool`, or `unreachable` (no answer at all).
 */
export type McpCallAnswer =
  | { ok: true; result: IMcpResult }
  | { ok: false; type: string; message: string };

/** The Jupyter server's MCP routes. */
export interface IMcpClient {
  /** The servers, their status and tools (starts servers not yet started). */
  listServers(signal?: AbortSignal): Promise<IMcpListing>;
  /** Call a listed tool; aborting `signal` cancels the call on the MCP server. */
  call(
    name: string,
    args: Record<string, unknown>,
    signal: AbortSignal
  ): Promise<McpCallAnswer>;
}
