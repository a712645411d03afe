/**
 * What the fault suites run against: the scripted model server, and a
 * private Jupyter server with the Notebook Agent server extension whose
 * proxy forwards to it with a secret key, so every model fault can be
 * played directly (the client talks to the model server) and through the
 * proxy (the client talks to Jupyter, which adds the key).
 */
import { connect } from 'node:net';
import {
  startScriptedServer,
  type IScriptedServer
} from '../../../agent/__tests__/fixtures/scripted-server';
import {
  OpenAIChatClient,
  type IOpenAIClientOptions
} from '../../../agent/model/openai-client';
import { JupyterServerProcess } from '../../servers/jupyter-server';

/** How the client reaches the model. */
export type Route = 'direct' | 'proxy';

/** The key the endpoint wants; it must never reach a notebook or a message. */
export const SECRET = 'sk-fault-suite-secret-0123456789abcdef';

/** The servers of one suite. */
export interface IFaultStack {
  model: IScriptedServer;
  jupyter: JupyterServerProcess;
  /** A loopback URL (…/v1) where nothing listens. */
  closedUrl: string;
  /** A model client for `route`; `down` points it at the closed port. */
  client(
    route: Route,
    options?: Partial<IOpenAIClientOptions> & { down?: boolean }
  ): OpenAIChatClient;
  dispose(): Promise<void>;
}

/** Start both servers (the Jupyter one with `extraArgs`). */
export async function startFaultStack(
  extraArgs: string[] = []
): Promise<IFaultStack> {
  const model = await startScriptedServer();
  const closedUrl = `http://127.0.0.1:${await refusedPort()}/v1`;
  let jupyter: JupyterServerProcess;
  try {
    jupyter = await JupyterServerProcess.start({
      extraArgs: [
        `--NotebookAgent.base_url=${model.root}/v1`,
        `--NotebookAgent.api_key=${SECRET}`,
        '--NotebookAgent.model=scripted-model',
        // The endpoint a "down" client names; nothing listens there.
        `--NotebookAgent.allowed_base_urls=${closedUrl}`,
        ...extraArgs
      ]
    });
  } catch (error) {
    model.stop();
    throw error;
  }
  return {
    model,
    jupyter,
    closedUrl,
    client(route, options = {}) {
      const { down, ...rest } = options;
      if (route === 'direct') {
        return new OpenAIChatClient({
          baseURL: down ? closedUrl : `${model.root}/v1`,
          model: 'scripted-model',
          apiKey: SECRET,
          ...rest
        });
      }
      // Jupyter takes its token as a Bearer token; the proxy adds the key.
      return new OpenAIChatClient({
        baseURL: `${jupyter.baseUrl}notebook-agent/v1`,
        model: '',
        apiKey: jupyter.token,
        headers: down ? { 'X-Notebook-Agent-Base-Url': closedUrl } : {},
        ...rest
      });
    },
    async dispose() {
      await jupyter.dispose();
      model.stop();
    }
  };
}

/**
 * A loopback port that refuses connections for the whole run. A port that
 * was free a moment ago may be taken by a kernel meanwhile, so use a
 * privileged one no kernel or test server binds (checked).
 */
async function refusedPort(): Promise<number> {
  for (const port of [1, 9, 13, 17]) {
    const refused = await new Promise<boolean>(resolve => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(false);
      });
      socket.once('error', error =>
        resolve((error as NodeJS.ErrnoException).code === 'ECONNREFUSED')
      );
    });
    if (refused) {
      return port;
    }
  }
  throw new Error('no loopback port refuses connections');
}

/** What the server logs about its kernels' lives (and its errors). */
const KERNEL_EVENT =
  /Kernel (started|restarted|interrupted|shutdown)|KernelRestarter|restart(ed)? failed|died|Replacing stale|Address already in use|^\[E /;

/**
 * The Jupyter server's last kernel events, on one line: why a kernel
 * restarted or died under a failed case, after the server is gone.
 */
export function kernelEvents(
  jupyter: JupyterServerProcess | undefined,
  count = 6
): string {
  const events = (jupyter?.log ?? '')
    .split('\n')
    .filter(line => KERNEL_EVENT.test(line))
    .slice(-count)
    // "[I 2026-12-07 06:37:03.902 ServerApp] …": the time and the event.
    .map(line =>
      line.replace(/^\[(\w) \S+ (\S+) \w+\] /, '$1 $2 ').slice(0, 120)
    );
  return events.length ? `[server] ${events.join(' | ')}` : '';
}
