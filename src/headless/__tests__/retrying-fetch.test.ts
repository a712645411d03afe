import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { retryingFetch } from '../servers/retrying-fetch';

/**
 * A real HTTP server that closes the connection of the first `drops`
 * requests without answering (what a restarting server does to a kept-alive
 * socket), then answers with the method and body it got.
 */
async function dropping(drops: number): Promise<{
  server: Server;
  url: string;
  seen: string[];
}> {
  const seen: string[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', chunk => (body += chunk));
    request.on('end', () => {
      seen.push(`${request.method} ${body}`);
      if (seen.length <= drops) {
        request.socket.destroy();
        return;
      }
      response.end(`${request.method} ${body}`);
    });
  });
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}/x`, seen };
}

describe('retryingFetch', () => {
  let server: Server | undefined;
  afterEach(() => server?.close());

  it.each(['GET', 'PUT', 'DELETE'])(
    'sends a %s once more, body included, when the server closed its connection',
    async method => {
      const stub = await dropping(1);
      server = stub.server;
      const body = method === 'GET' ? undefined : '{"a":1}';
      const response = await retryingFetch(stub.url, { method, body });
      expect(await response.text()).toBe(`${method} ${body ?? ''}`);
      expect(stub.seen).toHaveLength(2);
    }
  );

  it('sends a Request object once more too (its body cloned)', async () => {
    const stub = await dropping(1);
    server = stub.server;
    const response = await retryingFetch(
      new Request(stub.url, { method: 'PUT', body: 'cloned' })
    );
    expect(await response.text()).toBe('PUT cloned');
    expect(stub.seen).toEqual(['PUT cloned', 'PUT cloned']);
  });

  it('never sends a POST twice', async () => {
    const stub = await dropping(1);
    server = stub.server;
    await expect(
      retryingFetch(stub.url, { method: 'POST', body: 'start' })
    ).rejects.toThrow('fetch failed');
    expect(stub.seen).toEqual(['POST start']);
  });

  it('tries only once more: a server that keeps dropping is an error', async () => {
    const stub = await dropping(5);
    server = stub.server;
    await expect(retryingFetch(stub.url)).rejects.toThrow('fetch failed');
    expect(stub.seen).toHaveLength(2);
  });

  it('does not retry a refused connection (nothing listens there)', async () => {
    const stub = await dropping(0);
    const url = stub.url;
    await new Promise(resolve => stub.server.close(resolve));
    await expect(retryingFetch(url)).rejects.toMatchObject({
      cause: { code: 'ECONNREFUSED' }
    });
  });
});
