/**
 * The `mcp` command of `notebook-agent`: parse its options, then relay
 * (./bridge.ts). Parsed apart from the other commands: it needs no model.
 */
import { parseArgs } from 'node:util';
import type { ExitCode, ICliIO } from '../cli-io';
import { runBridge } from './bridge';

/** The command's usage. */
export const MCP_USAGE = `Usage: notebook-agent mcp --server URL [--token TOKEN]

An MCP server on stdin/stdout for outside agents (Claude Code, Codex, …),
relayed to the Jupyter server's notebook-agent/mcp endpoint:
  --server URL   the Jupyter server ($JUPYTER_URL), e.g. http://localhost:8888/
  --token TOKEN  its token ($JUPYTER_TOKEN; prefer the environment)`;

/**
 * `notebook-agent mcp-worker --server URL` (token in $JUPYTER_TOKEN): the
 * Jupyter server's own worker for notebooks no page has open (./worker.ts).
 */
export async function mcpWorkerCommand(
  argv: string[],
  io: ICliIO,
  input: NodeJS.ReadableStream = process.stdin
): Promise<ExitCode> {
  const { values } = parseArgs({
    args: argv,
    options: { server: { type: 'string' } }
  });
  if (!values.server) {
    io.err('notebook-agent mcp-worker: --server URL is needed.');
    return 64;
  }
  const { JupyterServerProcess } = await import('../../servers/jupyter-server');
  const { runWorker } = await import('./worker');
  return runWorker({
    settings: JupyterServerProcess.makeNodeSettings(
      values.server,
      io.env.JUPYTER_TOKEN ?? ''
    ),
    input,
    out: io.out
  });
}

/** Run the bridge; resolves with the exit code. */
export async function mcpCommand(
  argv: string[],
  io: ICliIO,
  input: NodeJS.ReadableStream = process.stdin
): Promise<ExitCode> {
  let values: { server?: string; token?: string; help?: boolean };
  try {
    values = parseArgs({
      args: argv,
      options: {
        server: { type: 'string' },
        token: { type: 'string' },
        help: { type: 'boolean', short: 'h' }
      }
    }).values;
  } catch (error) {
    io.err(`notebook-agent mcp: ${(error as Error).message}\n\n${MCP_USAGE}`);
    return 64;
  }
  if (values.help) {
    io.err(MCP_USAGE);
    return 0;
  }
  const server = values.server ?? io.env.JUPYTER_URL ?? '';
  let protocol = '';
  try {
    protocol = new URL(server).protocol;
  } catch {
    // Said below.
  }
  if (protocol !== 'http:' && protocol !== 'https:') {
    io.err(
      `notebook-agent mcp: --server must be the Jupyter server's http(s) URL${server ? `, not "${server}"` : ''}.\n\n${MCP_USAGE}`
    );
    return 64;
  }
  return runBridge({
    server,
    token: values.token ?? io.env.JUPYTER_TOKEN ?? '',
    input,
    out: io.out,
    err: io.err
  });
}
