/**
 * Stop through @jupyterlab/services in Node, after a garbage collection.
 * ServerConnection builds a Request from the caller's signal and hands it to
 * fetch, which copies it; in Node 20's undici the copy follows the first
 * Request's signal through a WeakRef only (nodejs/undici#4068), so once that
 * Request is collected, aborting the caller's signal reached nothing: the
 * request ran on, and an MCP call or a long read went on after Stop.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ServerConnection } from '@jupyterlab/services';
import { JupyterServerProcess } from '../servers/jupyter-server';

setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

/** A server that never answers, and says when a request's connection closed. */
async function silent(): Promise<{
  server: Server;
  base: string;
  closed: Promise<void>;
}> {
  let seen: (request: IncomingMessage) => void = () => undefined;
  const arrived = new Promise<IncomingMessage>(resolve => (seen = resolve));
  const server = createServer(request => seen(request));
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const closed = arrived.then(
    request => new Promise<void>(resolve => request.socket.on('close', resolve))
  );
  return { server, base: `http://127.0.0.1:${port}/`, closed };
}

describe('the Node connection settings', () => {
  let server: Server | undefined;
  afterEach(() => {
    server?.closeAllConnections();
    server?.close();
  });

  it.each(['GET', 'POST', 'PUT'])(
    'a %s aborted after a garbage collection stops, and its connection closes',
    async method => {
      const stub = await silent();
      server = stub.server;
      const settings = JupyterServerProcess.makeNodeSettings(stub.base, 't');
      const controller = new AbortController();
      const request = ServerConnection.makeRequest(
        `${stub.base}api/x`,
        {
          method,
          body: method === 'GET' ? undefined : '{}',
          signal: controller.signal
        },
        settings
      );
      const outcome = request.then(
        () => 'answered',
        // ServerConnection wraps the abort in its NetworkError.
        () => 'rejected'
      );
      await new Promise(resolve => setTimeout(resolve, 200));
      collect();
      controller.abort();
      const late = new Promise(resolve =>
        setTimeout(() => resolve('still running 3 s after Stop'), 3000)
      );
      expect(await Promise.race([outcome, late])).toBe('rejected');
      await expect(
        Promise.race([stub.closed.then(() => 'closed'), late])
      ).resolves.toBe('closed');
    }
  );
});
