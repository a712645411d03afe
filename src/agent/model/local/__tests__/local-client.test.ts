import { TurnAccumulator } from '../../accumulator';
import { describeModelError } from '../../errors';
import type { IChatChunk } from '../../types';
import { BUILTIN_MODELS } from '../catalogue';
import { LocalModelClient, type IWorkerPort } from '../local-client';
import type { WorkerEvent, WorkerRequest } from '../worker-protocol';

/** A worker that answers each request with scripted events. */
function scriptedWorker(
  script: (request: WorkerRequest) => WorkerEvent[]
): IWorkerPort & { requests: WorkerRequest[]; terminated: boolean } {
  const listeners = new Set<(event: WorkerEvent) => void>();
  const port = {
    requests: [] as WorkerRequest[],
    terminated: false,
    post(request: WorkerRequest) {
      port.requests.push(request);
      const events = script(request);
      setTimeout(() => events.forEach(e => listeners.forEach(l => l(e))), 0);
    },
    listen(listener: (event: WorkerEvent) => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    terminate() {
      port.terminated = true;
    }
  };
  return port;
}

const QWEN = BUILTIN_MODELS[0];

function client(port: IWorkerPort, warning: string | null = null) {
  return new LocalModelClient({
    entry: QWEN,
    source: { allowRemote: true },
    createWorker: () => port,
    plan: async () => ({ rungs: [{ device: 'wasm', dtype: 'q4' }], warning })
  });
}

const loaded = (id: number): WorkerEvent[] => [
  {
    type: 'progress',
    id,
    stage: 'download',
    loaded: 50,
    total: 100,
    percent: 50
  },
  {
    type: 'progress',
    id,
    stage: 'compiling',
    loaded: 100,
    total: 100,
    percent: 100
  },
  {
    type: 'loaded',
    id,
    rung: { device: 'wasm', dtype: 'q4' },
    seconds: 1,
    startsInThinking: false,
    endTokens: ['<|im_end|>']
  }
];

async function collect(stream: AsyncIterable<IChatChunk>) {
  const acc = new TurnAccumulator();
  for await (const chunk of stream) {
    acc.add(chunk);
  }
  return acc.result();
}

const REQUEST = {
  messages: [{ role: 'user' as const, content: 'mean of a?' }],
  tools: [
    { name: 'run_cell', description: 'Run.', parameters: { type: 'object' } }
  ]
};

describe('LocalModelClient', () => {
  it('loads once, then turns streamed Hermes text into tool calls', async () => {
    const raw = [
      '<think>ok</think>',
      '<tool',
      '_call>{"name": "run_cell", ',
      '"arguments": {"cell_id": "c1"}}</tool_call><|im_end|>'
    ];
    const port = scriptedWorker(request =>
      request.type === 'load'
        ? loaded(request.id)
        : request.type === 'generate'
          ? [
              ...raw.map(text => ({
                type: 'token' as const,
                id: request.id,
                text
              })),
              {
                type: 'done',
                id: request.id,
                reason: 'stop',
                promptTokens: 50,
                completionTokens: 20,
                reusedTokens: 0,
                seconds: 2,
                firstTokenSeconds: 1
              }
            ]
          : []
    );
    const model = client(port, 'slow');
    const turn = await collect(
      model.streamChat(REQUEST, new AbortController().signal)
    );
    expect(turn).toEqual({
      text: '',
      reasoning: 'ok',
      toolCalls: [
        { id: 'call_local_0', name: 'run_cell', arguments: '{"cell_id":"c1"}' }
      ],
      finishReason: 'tool_calls',
      usage: { promptTokens: 50, completionTokens: 20 }
    });
    // The next turn continues the ids, and the model is not loaded again.
    const second = await collect(
      model.streamChat(REQUEST, new AbortController().signal)
    );
    expect(second.toolCalls[0].id).toBe('call_local_1');
    expect(port.requests.map(r => r.type)).toEqual([
      'load',
      'generate',
      'generate'
    ]);
    const generate = port.requests[1];
    expect(
      generate.type === 'generate' && generate.tools[0].function.name
    ).toBe('run_cell');
    // Greedy unless a request samples (the agent's retry after a refused repeat).
    expect(generate).not.toHaveProperty('temperature');
    await collect(
      model.streamChat(
        { ...REQUEST, temperature: 0.7 },
        new AbortController().signal
      )
    );
    expect(port.requests[3]).toMatchObject({
      type: 'generate',
      temperature: 0.7
    });
    expect(model.status.getSnapshot()).toMatchObject({
      stage: 'ready',
      rung: { device: 'wasm', dtype: 'q4' },
      warning: 'slow',
      tokensPerSecond: 19
    });
  });

  it('shows the prompt being read until the first token, with a guess from the last turn', async () => {
    const turn = (id: number, reused: number): WorkerEvent[] => [
      { type: 'prompt', id, promptTokens: 2000, reusedTokens: reused },
      { type: 'token', id, text: 'Hello' },
      {
        type: 'done',
        id,
        reason: 'stop',
        promptTokens: 2000,
        completionTokens: 1,
        reusedTokens: reused,
        seconds: 4.5,
        firstTokenSeconds: 4
      }
    ];
    const port = scriptedWorker(request =>
      request.type === 'load'
        ? loaded(request.id)
        : request.type === 'generate'
          ? turn(request.id, request.id === 2 ? 0 : 1200)
          : []
    );
    const model = client(port);
    const seen: unknown[] = [];
    model.status.subscribe(() => seen.push(model.status.getSnapshot().prompt));
    await collect(model.streamChat(REQUEST, new AbortController().signal));
    // No speed measured yet: the size only; gone with the first token.
    expect(seen).toContainEqual({ tokens: 2000, reused: 0 });
    expect(model.status.getSnapshot().prompt).toBeUndefined();
    // 2,000 tokens read in 4 s: 500 a second.
    expect(model.status.getSnapshot().promptTokensPerSecond).toBe(500);
    seen.length = 0;
    await collect(model.streamChat(REQUEST, new AbortController().signal));
    // 800 tokens left to read at 500 a second.
    expect(seen).toContainEqual({ tokens: 2000, reused: 1200, estimateS: 1.6 });
    expect(model.status.getSnapshot()).toMatchObject({ stage: 'ready' });
    expect(model.status.getSnapshot().prompt).toBeUndefined();
  });

  it('sends interrupt when aborted and ends with an abort error', async () => {
    const port = scriptedWorker(request =>
      request.type === 'load'
        ? loaded(request.id)
        : request.type === 'generate'
          ? [{ type: 'token', id: request.id, text: 'The mean' }]
          : []
    );
    const controller = new AbortController();
    const model = client(port);
    const seen: string[] = [];
    const error = await (async () => {
      for await (const chunk of model.streamChat(REQUEST, controller.signal)) {
        seen.push(chunk.choices?.[0]?.delta?.content ?? '');
        controller.abort();
      }
    })().catch(e => e);
    expect(seen).toEqual(['The mean']);
    expect((error as Error).name).toBe('AbortError');
    expect(port.requests.map(r => r.type)).toContain('interrupt');
  });

  it('reports a failed load in words, and retries with a fresh worker', async () => {
    let workers = 0;
    const port = scriptedWorker(request =>
      request.type === 'load'
        ? [
            {
              type: 'error',
              id: request.id,
              message: 'Failed to allocate 2 GB: out of memory'
            }
          ]
        : []
    );
    const model = new LocalModelClient({
      entry: QWEN,
      source: { allowRemote: true },
      createWorker: () => {
        workers++;
        return port;
      },
      plan: async () => ({
        rungs: [{ device: 'webgpu', dtype: 'q4' }],
        warning: null
      })
    });
    const error = await collect(
      model.streamChat(REQUEST, new AbortController().signal)
    ).catch(e => e);
    expect(describeModelError(error)).toMatchObject({
      kind: 'not-configured',
      message: expect.stringMatching(/does not fit in this device’s memory/),
      hint: expect.stringMatching(/smaller model/)
    });
    expect(model.status.getSnapshot().stage).toBe('error');
    expect(port.terminated).toBe(true);
    await collect(
      model.streamChat(REQUEST, new AbortController().signal)
    ).catch(() => null);
    expect(workers).toBe(2);
  });

  it('names the file and host of a failed download, and the adapter of a WebGPU failure', async () => {
    const url =
      'https://huggingface.co/onnx-community/Qwen3-0.6B-ONNX/resolve/main/onnx/model_q4.onnx';
    const failing = (message: string, extra: Partial<WorkerEvent>) =>
      new LocalModelClient({
        entry: QWEN,
        source: { allowRemote: true },
        createWorker: () =>
          scriptedWorker(request =>
            request.type === 'load'
              ? [
                  {
                    type: 'error',
                    id: request.id,
                    message,
                    ...extra
                  } as WorkerEvent
                ]
              : []
          ),
        plan: async () => ({
          rungs: [{ device: 'webgpu', dtype: 'q4' }],
          warning: null,
          adapter: 'nvidia ampere'
        })
      });
    const offline = failing(
      'Could not download onnx/model_q4.onnx from huggingface.co: Failed to fetch',
      { url }
    );
    await expect(offline.load()).rejects.toMatchObject({
      kind: 'unreachable',
      message:
        'Could not download onnx/model_q4.onnx from huggingface.co (Failed to fetch)'
    });
    expect(offline.status.getSnapshot().error).toBe(
      'Could not download onnx/model_q4.onnx from huggingface.co (Failed to fetch)'
    );
    // Without a URL, the host still comes from where the client loads from.
    await expect(failing('Failed to fetch', {}).load()).rejects.toMatchObject({
      kind: 'unreachable',
      message: expect.stringContaining('from huggingface.co')
    });
    await expect(
      failing('GPUDevice was lost', { device: 'WebGPU (q4)' }).load()
    ).rejects.toMatchObject({
      kind: 'webgpu',
      message:
        'WebGPU failed on nvidia ampere (WebGPU (q4)): GPUDevice was lost'
    });
  });

  it('says when no rung can run the model', async () => {
    const model = new LocalModelClient({
      entry: QWEN,
      source: { allowRemote: true },
      createWorker: () => scriptedWorker(() => []),
      plan: async () => ({ rungs: [], warning: null })
    });
    await expect(model.load()).rejects.toThrow(
      /ships no weights this browser can run/
    );
  });
});

describe('LocalModelClient.complete (inline completion)', () => {
  const FIM = {
    prompt: '<|fim_prefix|>x = <|fim_suffix|>\n<|fim_middle|>',
    stop: ['\n\n'],
    maxTokens: 16
  };

  async function texts(stream: AsyncIterable<string>) {
    const out: string[] = [];
    for await (const text of stream) {
      out.push(text);
    }
    return out;
  }

  const done = (id: number): WorkerEvent => ({
    type: 'done',
    id,
    reason: 'stop',
    promptTokens: 9,
    completionTokens: 2,
    reusedTokens: 0,
    seconds: 0.1,
    firstTokenSeconds: 0.05
  });

  it('loads once, posts the raw prompt and streams the texts', async () => {
    const port = scriptedWorker(request =>
      request.type === 'load'
        ? loaded(request.id)
        : request.type === 'complete'
          ? [
              {
                type: 'prompt',
                id: request.id,
                promptTokens: 9,
                reusedTokens: 0
              },
              { type: 'token', id: request.id, text: '1' },
              { type: 'token', id: request.id, text: ' + 2' },
              done(request.id)
            ]
          : []
    );
    const model = client(port);
    const signal = new AbortController().signal;
    expect(await texts(model.complete(FIM, signal))).toEqual(['1', ' + 2']);
    expect(await texts(model.complete(FIM, signal))).toEqual(['1', ' + 2']);
    expect(port.requests).toEqual([
      expect.objectContaining({ type: 'load' }),
      {
        type: 'complete',
        id: 2,
        prompt: FIM.prompt,
        maxNewTokens: 16,
        stop: ['\n\n']
      },
      expect.objectContaining({ type: 'complete', id: 3 })
    ]);
    // A completion does not touch the chat's progress display.
    expect(model.status.getSnapshot()).toMatchObject({ stage: 'ready' });
  });

  it('on abort posts an interrupt for its request and ends at once, without an error', async () => {
    const port = scriptedWorker(request =>
      request.type === 'load'
        ? loaded(request.id)
        : request.type === 'complete'
          ? // Tokens and no end: only the abort ends this stream.
            ['a', 'b', 'c'].map(text => ({
              type: 'token' as const,
              id: request.id,
              text
            }))
          : []
    );
    const controller = new AbortController();
    const model = client(port);
    const seen: string[] = [];
    for await (const text of model.complete(FIM, controller.signal)) {
      seen.push(text);
      controller.abort();
    }
    expect(seen).toEqual(['a']);
    expect(port.requests[port.requests.length - 1]).toEqual({
      type: 'interrupt',
      id: 2
    });
  });

  it('interrupts the worker when the caller stops reading', async () => {
    const port = scriptedWorker(request =>
      request.type === 'load'
        ? loaded(request.id)
        : request.type === 'complete'
          ? [{ type: 'token', id: request.id, text: 'a' }]
          : []
    );
    const model = client(port);
    for await (const text of model.complete(
      FIM,
      new AbortController().signal
    )) {
      expect(text).toBe('a');
      break;
    }
    expect(port.requests.map(r => r.type)).toEqual([
      'load',
      'complete',
      'interrupt'
    ]);
  });

  it('ends empty when the worker refuses (a chat turn runs), and posts nothing more', async () => {
    const port = scriptedWorker(request =>
      request.type === 'load'
        ? loaded(request.id)
        : request.type === 'complete'
          ? [
              {
                ...done(request.id),
                reason: 'interrupted' as const,
                promptTokens: 0,
                completionTokens: 0
              }
            ]
          : []
    );
    const model = client(port);
    expect(
      await texts(model.complete(FIM, new AbortController().signal))
    ).toEqual([]);
    expect(port.requests.map(r => r.type)).toEqual(['load', 'complete']);
  });

  it('aborted while the model loads: ends at once, and the load goes on for later', async () => {
    let release: () => void = () => undefined;
    const port = scriptedWorker(() => []);
    const controller = new AbortController();
    const model = new LocalModelClient({
      entry: QWEN,
      source: { allowRemote: true },
      createWorker: () => port,
      plan: () =>
        new Promise(resolve => {
          release = () =>
            resolve({
              rungs: [{ device: 'wasm', dtype: 'q4' }],
              warning: null
            });
        })
    });
    const stream = texts(model.complete(FIM, controller.signal));
    await new Promise(resolve => setTimeout(resolve, 0));
    controller.abort();
    expect(await stream).toEqual([]);
    release();
    await new Promise(resolve => setTimeout(resolve, 0));
    expect(port.requests.map(r => r.type)).toEqual(['load']);
  });

  it('throws the worker’s error, in words', async () => {
    const port = scriptedWorker(request =>
      request.type === 'load'
        ? loaded(request.id)
        : request.type === 'complete'
          ? [{ type: 'error', id: request.id, message: 'No model is loaded.' }]
          : []
    );
    const model = client(port);
    await expect(
      texts(model.complete(FIM, new AbortController().signal))
    ).rejects.toMatchObject({ name: 'LocalModelError' });
  });
});
