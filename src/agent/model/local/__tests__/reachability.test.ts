import { createServer, type Server } from 'http';
import type { AddressInfo } from 'net';
import {
  ModelReachStore,
  checkModelReach,
  fileOfUrl,
  modelFileUrl,
  type ProbeFetch,
  type ModelReach
} from '../reachability';

const QWEN = { model: 'onnx-community/Qwen3-0.6B-ONNX', revision: 'main' };

/** Node's fetch, as the check takes it. */
const nodeFetch: ProbeFetch = (url, init) => fetch(url, init);

describe('the URL the check asks for', () => {
  it('is the model’s config.json on the hub by default, on a mirror when one is set', () => {
    expect(modelFileUrl({ ...QWEN, allowRemote: true }, 'config.json')).toBe(
      'https://huggingface.co/onnx-community/Qwen3-0.6B-ONNX/resolve/main/config.json'
    );
    expect(
      modelFileUrl(
        { ...QWEN, allowRemote: true, remoteHost: 'https://hf-mirror.com/' },
        'config.json'
      )
    ).toBe(
      'https://hf-mirror.com/onnx-community/Qwen3-0.6B-ONNX/resolve/main/config.json'
    );
  });

  it('is in the site’s model folder when one is set, even with downloads off', () => {
    expect(
      modelFileUrl(
        {
          ...QWEN,
          allowRemote: false,
          localModelPath: 'http://localhost:8888/notebook-agent/models/'
        },
        'config.json'
      )
    ).toBe(
      'http://localhost:8888/notebook-agent/models/onnx-community/Qwen3-0.6B-ONNX/config.json'
    );
  });

  it('is none when nothing is fetched over HTTP (downloads off, no folder)', () => {
    expect(
      modelFileUrl({ ...QWEN, allowRemote: false }, 'config.json')
    ).toBeNull();
  });

  it('names a file by its path in the model folder', () => {
    expect(
      fileOfUrl(
        'https://huggingface.co/onnx-community/Qwen3-0.6B-ONNX/resolve/main/onnx/model_q4.onnx'
      )
    ).toBe('onnx/model_q4.onnx');
    expect(
      fileOfUrl(
        'http://localhost:8888/notebook-agent/models/site/tiny/onnx/model.onnx',
        'site/tiny'
      )
    ).toBe('onnx/model.onnx');
    expect(fileOfUrl('http://x/static/ort.wasm')).toBe('ort.wasm');
  });
});

describe('checkModelReach over real HTTP', () => {
  let server: Server;
  let base: string;
  const methods: string[] = [];
  const ranges: string[] = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      methods.push(request.method ?? '');
      ranges.push(request.headers.range ?? '');
      if (request.url?.startsWith('/slow')) {
        return; // never answers
      }
      const status = request.url?.startsWith('/ok')
        ? 206
        : request.url?.startsWith('/blocked')
          ? 403
          : 404;
      response.writeHead(status).end();
    });
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise(resolve => server.close(resolve));
  });

  it('a host that has the file is reachable, asked once for its first byte', async () => {
    methods.length = 0;
    ranges.length = 0;
    await expect(
      checkModelReach(`${base}/ok/config.json`, nodeFetch)
    ).resolves.toEqual({ state: 'reachable', url: `${base}/ok/config.json` });
    expect(methods).toEqual(['GET']);
    expect(ranges).toEqual(['bytes=0-0']);
  });

  it('a model in the browser’s cache needs no host', async () => {
    methods.length = 0;
    const url = `${base}/none/config.json`;
    await expect(
      checkModelReach(url, nodeFetch, 1000, async u => u === url)
    ).resolves.toEqual({ state: 'reachable', url, cached: true });
    expect(methods).toEqual([]);
    // A cache that fails is no answer: the host is asked.
    await expect(
      checkModelReach(url, nodeFetch, 1000, () =>
        Promise.reject(new Error('SecurityError'))
      )
    ).resolves.toMatchObject({ state: 'missing' });
  });

  it('a 404 is a missing file, a 403 a refusal', async () => {
    await expect(
      checkModelReach(`${base}/none/config.json`, nodeFetch)
    ).resolves.toMatchObject({ state: 'missing', status: 404 });
    await expect(
      checkModelReach(`${base}/blocked/config.json`, nodeFetch)
    ).resolves.toMatchObject({
      state: 'unreachable',
      host: new URL(base).host,
      reason: 'it answered HTTP 403'
    });
  });

  it('a host that does not answer in time is unreachable, after the timeout', async () => {
    const started = Date.now();
    const outcome = await checkModelReach(
      `${base}/slow/config.json`,
      nodeFetch,
      300
    );
    expect(outcome).toMatchObject({
      state: 'unreachable',
      reason: 'no answer within 300 ms'
    });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('a port nobody listens on is unreachable, with the fetch’s reason', async () => {
    const closed = createServer();
    await new Promise<void>(resolve => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise(resolve => closed.close(resolve));
    const outcome = await checkModelReach(
      `http://127.0.0.1:${port}/config.json`,
      nodeFetch
    );
    expect(outcome).toMatchObject({
      state: 'unreachable',
      host: `127.0.0.1:${port}`,
      reason: 'fetch failed'
    });
  });
});

describe('ModelReachStore', () => {
  /** A fetch whose answers the test gives, one per call. */
  function controlledFetch() {
    const calls: string[] = [];
    const answers: Array<(status: number | Error) => void> = [];
    const fetchFn: ProbeFetch = url => {
      calls.push(url);
      return new Promise((resolve, reject) =>
        answers.push(answer =>
          answer instanceof Error
            ? reject(answer)
            : resolve({ ok: answer < 400, status: answer })
        )
      );
    };
    return { calls, answers, fetchFn };
  }

  const settle = () => new Promise(resolve => setTimeout(resolve, 0));

  it('checks once per URL, never waits, and tells its subscribers', async () => {
    const { calls, answers, fetchFn } = controlledFetch();
    const store = new ModelReachStore(fetchFn);
    const seen: ModelReach['state'][] = [];
    store.subscribe(() => seen.push(store.getSnapshot().state));
    store.check('https://huggingface.co/m/resolve/main/config.json');
    // check() returned before any answer: the sidebar is not held up.
    expect(store.getSnapshot().state).toBe('checking');
    store.check('https://huggingface.co/m/resolve/main/config.json');
    expect(calls).toHaveLength(1);
    answers[0](new TypeError('Failed to fetch'));
    await settle();
    expect(store.getSnapshot()).toEqual({
      state: 'unreachable',
      url: 'https://huggingface.co/m/resolve/main/config.json',
      host: 'huggingface.co',
      reason: 'Failed to fetch'
    });
    expect(seen).toEqual(['checking', 'unreachable']);
    store.check('https://huggingface.co/m/resolve/main/config.json');
    expect(calls).toHaveLength(1);
  });

  it('a new URL (other settings) is checked afresh, and a late answer to the old one is ignored', async () => {
    const { calls, answers, fetchFn } = controlledFetch();
    const store = new ModelReachStore(fetchFn);
    store.check('https://huggingface.co/a/config.json');
    store.check('http://localhost:8888/notebook-agent/models/a/config.json');
    expect(calls).toHaveLength(2);
    answers[1](200);
    await settle();
    answers[0](new TypeError('Failed to fetch'));
    await settle();
    expect(store.getSnapshot()).toEqual({
      state: 'reachable',
      url: 'http://localhost:8888/notebook-agent/models/a/config.json'
    });
    store.check(null);
    expect(store.getSnapshot().state).toBe('unchecked');
  });

  it('a model that loads after all lifts an "unreachable"', async () => {
    const { answers, fetchFn } = controlledFetch();
    const store = new ModelReachStore(fetchFn);
    store.check('https://huggingface.co/a/config.json', 'a');
    answers[0](new TypeError('Failed to fetch'));
    await settle();
    expect(store.getSnapshot()).toMatchObject({
      state: 'unreachable',
      model: 'a'
    });
    store.loaded();
    expect(store.getSnapshot()).toEqual({
      state: 'reachable',
      url: 'https://huggingface.co/a/config.json',
      model: 'a'
    });
  });
});
