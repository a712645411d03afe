/**
 * Reaching the servers a command-line run needs, before anything is
 * written: the model endpoint and the Jupyter server (the one given with
 * --server, or a private one started for the run). Each failure names the
 * URL and says what to do, and no check waits longer than --connect-timeout
 * (a server that accepts the connection and never answers used to hang the
 * run for minutes).
 */
import type { ServerConnection } from '@jupyterlab/services';
import { MIN_KEY_LENGTH } from '../../agent/model/key-out-of-requests';
import type { ICommonOptions } from './cli-args';
import { JupyterServerProcess } from '../servers/jupyter-server';

/** A failure whose message is the whole story: printed as it is, exit 1. */
export class CliError extends Error {}

/** A Jupyter server for the run, and how to let it go. */
export interface IJupyterConnection {
  settings: ServerConnection.ISettings;
  /** Where the server is, for messages. */
  url: string;
  dispose: () => Promise<void>;
}

/**
 * Check that the model endpoint answers HTTP at all (any status: a server
 * without /models, or a key without the right to list them, still chats).
 */
export async function checkModelEndpoint(
  common: ICommonOptions
): Promise<void> {
  const response = await request(
    'the model endpoint',
    common.baseUrl,
    `${common.baseUrl.replace(/\/+$/, '')}/models`,
    common.apiKey ? { Authorization: `Bearer ${common.apiKey}` } : {},
    common.connectTimeoutMs,
    'start the model server, or point --base-url (or $OPENAI_BASE_URL) at a running one.'
  );
  await response.body?.cancel();
}

/**
 * The given server, once it answered with the token accepted; else a
 * private server serving `rootDir`, started for the run.
 */
export async function connectJupyter(
  common: ICommonOptions,
  rootDir: string
): Promise<IJupyterConnection> {
  if (common.server) {
    const url = common.server;
    const base = url.endsWith('/') ? url : `${url}/`;
    const response = await request(
      'the Jupyter server',
      url,
      `${base}api/status`,
      common.token ? { Authorization: `token ${common.token}` } : {},
      common.connectTimeoutMs,
      'start it, or leave out --server to let notebook-agent start a private one.'
    );
    await response.body?.cancel();
    if (response.status === 401 || response.status === 403) {
      throw new CliError(
        `the Jupyter server at ${url} refused the token: pass --token or set $JUPYTER_TOKEN to its token.`
      );
    }
    if (!response.ok) {
      throw new CliError(
        `${url} answered ${response.status} to ${base}api/status: is it a Jupyter server (and the URL its base URL)?`
      );
    }
    return {
      settings: JupyterServerProcess.makeNodeSettings(url, common.token),
      url,
      dispose: async () => undefined
    };
  }
  let server: JupyterServerProcess;
  try {
    // The run's key is a secret for the private server's extension: it
    // then replaces it in kernel output by [redacted], so a cell that finds
    // and prints it cannot put it in the notebook (nor, through the agent,
    // in the next request: the model client removes it too).
    server = await JupyterServerProcess.start({
      rootDir,
      secrets: common.apiKey.length >= MIN_KEY_LENGTH ? [common.apiKey] : []
    });
  } catch (error) {
    throw new CliError(
      `${(error as Error).message}\n(Or pass --server URL to use a Jupyter server that is already running.)`
    );
  }
  return {
    settings: server.serverSettings,
    url: server.baseUrl,
    dispose: () => server.dispose()
  };
}

/** GET `url`; a failure to get any answer becomes a CliError naming `shown`. */
async function request(
  what: string,
  shown: string,
  url: string,
  headers: Record<string, string>,
  timeoutMs: number,
  advice: string
): Promise<Response> {
  try {
    return await fetch(url, {
      headers,
      signal: AbortSignal.timeout(timeoutMs)
    });
  } catch (error) {
    if ((error as Error).name === 'TimeoutError') {
      throw new CliError(
        `${what} at ${shown} did not answer within ${timeoutMs / 1000} s: check the URL, or give it longer with --connect-timeout SECONDS.`
      );
    }
    throw new CliError(
      `cannot reach ${what} at ${shown}: ${why(error)}; ${advice}`
    );
  }
}

/** The cause of a failed fetch in words (fetch itself only says "fetch failed"). */
function why(error: unknown): string {
  const cause = (error as { cause?: NodeJS.ErrnoException }).cause;
  switch (cause?.code) {
    case 'ECONNREFUSED':
      return 'connection refused (nothing listens there)';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `host not found (${cause.code})`;
    case 'ECONNRESET':
      return 'the connection was reset';
    case undefined:
    default:
      return cause?.message ?? (error as Error).message;
  }
}
