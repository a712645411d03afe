/**
 * `notebook-agent mcp`: an MCP server on stdin/stdout for clients that only
 * start commands. It relays each JSON-RPC message, one per line, to the
 * Jupyter server's MCP endpoint (`<server>/notebook-agent/mcp`, streamable
 * HTTP) with the token in the Authorization header, and writes each answer
 * back as one line. It interprets nothing of MCP but the session id and
 * protocol version that `initialize` answers (sent again with every later
 * message), so what an outside agent may do is decided by the server alone:
 * its authentication, Authorizer, path checks, approvals and secret filter.
 */
import { createInterface } from 'node:readline';

/** What the bridge needs. */
export interface IBridgeOptions {
  /** The Jupyter server's base URL (with its base path, if any). */
  server: string;
  /** Its token ('' for a server without one). */
  token: string;
  /** JSON-RPC lines from the client. */
  input: NodeJS.ReadableStream;
  /** Write one line to the client (the answers, and nothing else). */
  out: (line: string) => void;
  /** Say something to the user (stderr). */
  err: (line: string) => void;
}

/** The endpoint under a server's base URL. */
export function endpointOf(server: string): string {
  return new URL(
    'notebook-agent/mcp',
    server.endsWith('/') ? server : `${server}/`
  ).toString();
}

type JsonRpc = { id?: unknown; method?: unknown; result?: unknown };

/** Relay until the input ends; then end the session. Resolves with the exit code. */
export async function runBridge(options: IBridgeOptions): Promise<0 | 1> {
  const endpoint = endpointOf(options.server);
  let session = '';
  let version = '';
  const headers = (): Record<string, string> => ({
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    ...(options.token ? { Authorization: `Bearer ${options.token}` } : {}),
    ...(session ? { 'Mcp-Session-Id': session } : {}),
    ...(version ? { 'MCP-Protocol-Version': version } : {})
  });
  const fail = (id: unknown, message: string) => {
    if (id !== undefined) {
      options.out(
        JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32000, message } })
      );
    }
  };
  const relay = async (line: string) => {
    let message: JsonRpc;
    try {
      message = JSON.parse(line) as JsonRpc;
    } catch {
      options.out(
        JSON.stringify({
          jsonrpc: '2.0',
          id: null,
          error: { code: -32700, message: 'Parse error' }
        })
      );
      return;
    }
    const id = message.method !== undefined ? message.id : undefined;
    let response: Response;
    try {
      response = await fetch(endpoint, {
        method: 'POST',
        headers: headers(),
        body: line
      });
    } catch (error) {
      fail(
        id,
        `The Jupyter server at ${options.server} did not answer: ${(error as Error).message}`
      );
      return;
    }
    const type = response.headers.get('content-type') ?? '';
    const body = await response.text();
    if (response.status === 202 || !body) {
      return;
    }
    if (!type.startsWith('application/json')) {
      fail(
        id,
        `The Jupyter server answered ${response.status} ${response.statusText}.`
      );
      return;
    }
    let answer: JsonRpc;
    try {
      answer = JSON.parse(body) as JsonRpc;
    } catch {
      fail(
        id,
        `The Jupyter server answered ${response.status} with a body that is not JSON.`
      );
      return;
    }
    if (message.method === 'initialize' && response.ok) {
      session = response.headers.get('mcp-session-id') ?? '';
      const result = answer.result as { protocolVersion?: unknown } | undefined;
      version =
        typeof result?.protocolVersion === 'string'
          ? result.protocolVersion
          : '';
    }
    if (answer.id === null && id !== undefined) {
      answer.id = id; // a refusal before the server read the id (401, 403): the client's own
    }
    if (response.status === 401) {
      options.err(
        'notebook-agent mcp: the Jupyter server refused the token (pass --token or set $JUPYTER_TOKEN).'
      );
    }
    options.out(JSON.stringify(answer));
  };
  const pending = new Set<Promise<void>>();
  const lines = createInterface({ input: options.input, crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.trim()) {
      continue;
    }
    // Messages are relayed as they come: a call waiting for an approval holds up no other.
    const relayed = relay(line).finally(() => pending.delete(relayed));
    pending.add(relayed);
    if (!session) {
      await relayed; // initialize's answer names the session the next messages carry
    }
  }
  await Promise.all(pending);
  if (session) {
    try {
      await fetch(endpoint, { method: 'DELETE', headers: headers() });
    } catch {
      // The server is gone: so is the session.
    }
  }
  return 0;
}
