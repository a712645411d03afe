/**
 * @jest-environment ./jest/typed-array-environment.js
 */
import { createServer } from 'http';
import type { AddressInfo } from 'net';
import type { WorkerEvent } from '../../agent/model/local/worker-protocol';
import { localModelError } from '../../agent/model/local/local-errors';
import { LocalModelWorker } from '../model-worker';
import { nodeTransformers } from './tiny-model';

/** A local port nobody listens on (an unreachable host, without waiting for DNS). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise(resolve => server.close(resolve));
  return port;
}

describe('the worker offline (transformers.js in Node, a host that does not answer)', () => {
  it('reports the URL it could not download and names the file and the host', async () => {
    const host = `127.0.0.1:${await closedPort()}`;
    const events: WorkerEvent[] = [];
    const worker = new LocalModelWorker(nodeTransformers(), e =>
      events.push(e)
    );
    await worker.handle({
      type: 'load',
      id: 3,
      source: {
        model: 'onnx-community/Qwen3-0.6B-ONNX',
        revision: 'main',
        remoteHost: `http://${host}/`,
        allowRemote: true
      },
      rungs: [{ device: 'wasm', dtype: 'q4' }]
    });
    const error = events.find(e => e.type === 'error');
    expect(error).toMatchObject({
      type: 'error',
      id: 3,
      url: expect.stringMatching(
        new RegExp(
          `^http://${host}/onnx-community/Qwen3-0\\.6B-ONNX/resolve/main/[a-z_]+\\.json$`
        )
      ),
      message: expect.stringMatching(
        new RegExp(`^Could not download [a-z_]+\\.json from ${host}: `)
      )
    });
    const shown = localModelError(
      error?.type === 'error' ? error.message : '',
      {
        url: error?.type === 'error' ? error.url : undefined,
        model: 'onnx-community/Qwen3-0.6B-ONNX'
      }
    );
    expect(shown.kind).toBe('unreachable');
    expect(shown.message).toMatch(
      new RegExp(`^Could not download [a-z_]+\\.json from ${host} \\(`)
    );
    expect(shown.hint).toContain(`Can’t reach ${host} — offline or blocked?`);
  });
});
