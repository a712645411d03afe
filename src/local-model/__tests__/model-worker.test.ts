/**
 * @jest-environment ./jest/typed-array-environment.js
 */
import type { WorkerEvent } from '../../agent/model/local/worker-protocol';
import { LocalModelWorker } from '../model-worker';
import { encodePrompt } from '../prompt-encoding';
import { applySource } from '../model-source';
import {
  MODELS_DIR,
  TINY_MODEL,
  ensureTinyModel,
  nodeTransformers
} from './tiny-model';

const TOOLS = [
  {
    type: 'function' as const,
    function: {
      name: 'run_cell',
      description: 'Run a cell.',
      parameters: {
        type: 'object',
        properties: { cell_id: { type: 'string' } },
        required: ['cell_id']
      }
    }
  }
];

const MESSAGES = [
  { role: 'system' as const, content: 'You are a data assistant.' },
  { role: 'user' as const, content: 'What is the mean of column a?' }
];

describe('LocalModelWorker with transformers.js on the tiny model (Node)', () => {
  const events: WorkerEvent[] = [];
  let worker: LocalModelWorker;

  beforeAll(async () => {
    ensureTinyModel();
    worker = new LocalModelWorker(nodeTransformers(), event => {
      events.push(event);
      if (event.type === 'token' && onToken) {
        onToken(event.text);
      }
    });
    await worker.handle({
      type: 'load',
      id: 1,
      source: {
        model: TINY_MODEL,
        revision: 'main',
        localModelPath: `${MODELS_DIR}/`,
        allowRemote: false
      },
      // q4f16 is not built: the first rung fails and the second loads.
      rungs: [
        { device: 'wasm', dtype: 'q4f16' },
        { device: 'wasm', dtype: 'q4' }
      ]
    });
  }, 120000);

  afterAll(async () => {
    await worker?.handle({ type: 'dispose', id: 99 });
  });

  let onToken: ((text: string) => void) | null = null;
  const of = (id: number) => events.filter(e => e.id === id);
  /** The text a generation streamed. */
  const text = (id: number) =>
    of(id)
      .map(e => (e.type === 'token' ? e.text : ''))
      .join('');

  it('loads down the ladder, with progress to 100 % and a fallback report', () => {
    const load = of(1);
    expect(load.filter(e => e.type === 'error')).toEqual([]);
    const fallback = load.find(e => e.type === 'fallback');
    expect(fallback).toMatchObject({
      failed: { dtype: 'q4f16' },
      next: { dtype: 'q4' }
    });
    const progress = load.filter(e => e.type === 'progress');
    const downloads = progress.filter(
      e => e.type === 'progress' && e.stage === 'download'
    );
    expect(downloads.length).toBeGreaterThan(0);
    expect(progress[progress.length - 1]).toMatchObject({
      stage: 'compiling',
      percent: 100
    });
    const loaded = load.find(e => e.type === 'loaded');
    expect(loaded).toMatchObject({
      rung: { device: 'wasm', dtype: 'q4' },
      startsInThinking: false,
      endTokens: ['<|im_end|>']
    });
  });

  it('streams tokens of a tool-calling prompt and stops at max_new_tokens', async () => {
    await worker.handle({
      type: 'generate',
      id: 2,
      messages: MESSAGES,
      tools: TOOLS,
      maxNewTokens: 12
    });
    const run = of(2);
    expect(run.filter(e => e.type === 'error')).toEqual([]);
    const tokens = run.filter(e => e.type === 'token');
    expect(tokens.length).toBeGreaterThan(1);
    const done = run.find(e => e.type === 'done');
    expect(done).toMatchObject({
      reason: 'length',
      completionTokens: 12,
      reusedTokens: 0
    });
    // The template put the tools into the prompt: far more than the messages alone.
    expect(done?.type === 'done' && done.promptTokens).toBeGreaterThan(100);
  });

  it('reuses the KV cache when the next prompt extends the last one', async () => {
    await worker.handle({
      type: 'generate',
      id: 3,
      messages: [
        ...MESSAGES,
        { role: 'assistant', content: 'Let me look.' },
        { role: 'user', content: 'Go on.' }
      ],
      tools: TOOLS,
      maxNewTokens: 4
    });
    const done = of(3).find(e => e.type === 'done');
    const first = of(2).find(e => e.type === 'done');
    expect(done?.type).toBe('done');
    // Before any token, the prompt's size and the part the cache holds.
    const events = of(3);
    const prompt = events.findIndex(e => e.type === 'prompt');
    expect(prompt).toBeGreaterThanOrEqual(0);
    expect(prompt).toBeLessThan(events.findIndex(e => e.type === 'token'));
    if (done?.type === 'done') {
      expect(events[prompt]).toEqual({
        type: 'prompt',
        id: 3,
        promptTokens: done.promptTokens,
        reusedTokens: done.reusedTokens
      });
    }
    if (done?.type === 'done' && first?.type === 'done') {
      // At least the whole previous prompt was reused, not re-encoded.
      expect(done.reusedTokens).toBeGreaterThanOrEqual(first.promptTokens);
      expect(done.reusedTokens).toBeLessThan(done.promptTokens);
    }
  });

  it('gives the same tokens with a reused cache as without', async () => {
    const request = {
      type: 'generate' as const,
      messages: [
        ...MESSAGES,
        { role: 'user' as const, content: 'And the median?' }
      ],
      tools: TOOLS,
      maxNewTokens: 6
    };
    await worker.handle({ type: 'reset' });
    await worker.handle({ ...request, id: 4 });
    await worker.handle({ ...request, id: 5, maxNewTokens: 6 });
    const second = of(5).find(e => e.type === 'done');
    expect(second?.type === 'done' && second.reusedTokens).toBeGreaterThan(0);
    expect(text(5)).toBe(text(4));
  });

  it('samples when a request names a temperature, and is greedy again after it', async () => {
    const request = {
      type: 'generate' as const,
      messages: MESSAGES,
      tools: [],
      maxNewTokens: 8
    };
    await worker.handle({ type: 'reset' });
    await worker.handle({ ...request, id: 20 });
    for (const id of [21, 22, 23]) {
      await worker.handle({ ...request, id, temperature: 1.5 });
      expect(of(id).filter(e => e.type === 'error')).toEqual([]);
      expect(of(id).find(e => e.type === 'done')).toMatchObject({
        completionTokens: 8
      });
    }
    // Sampled: at 1.5, three runs of 8 tokens all equal to the greedy one
    // would mean no sampling took place.
    expect([21, 22, 23].map(text).some(t => t !== text(20))).toBe(true);
    await worker.handle({ ...request, id: 24 });
    expect(text(24)).toBe(text(20));
  });

  it('stops within one token of an interrupt', async () => {
    let seen = 0;
    onToken = () => {
      seen++;
      if (seen === 3) {
        void worker.handle({ type: 'interrupt' });
      }
    };
    await worker.handle({
      type: 'generate',
      id: 6,
      messages: MESSAGES,
      tools: TOOLS,
      maxNewTokens: 400
    });
    onToken = null;
    const done = of(6).find(e => e.type === 'done');
    expect(done).toMatchObject({ reason: 'interrupted' });
    const generated = done?.type === 'done' ? done.completionTokens : 0;
    // Text events can group tokens (the streamer emits words), so count tokens.
    expect(generated).toBeGreaterThanOrEqual(3);
    expect(generated).toBeLessThan(3 + 8);
  });

  it('says which files are missing, and where it looked', async () => {
    const fresh: WorkerEvent[] = [];
    const other = new LocalModelWorker(nodeTransformers(), e => fresh.push(e));
    await other.handle({
      type: 'load',
      id: 8,
      source: { model: 'site/absent', revision: 'main', allowRemote: false },
      rungs: [{ device: 'wasm', dtype: 'q4' }]
    });
    expect(fresh).toEqual([
      {
        type: 'error',
        id: 8,
        message:
          'site/absent/tokenizer_config.json was not found (no local model path is set and downloads are turned off)'
      }
    ]);
  });

  it('reports a generate before load as an error event', async () => {
    const fresh: WorkerEvent[] = [];
    const other = new LocalModelWorker(nodeTransformers(), e => fresh.push(e));
    await other.handle({
      type: 'generate',
      id: 7,
      messages: MESSAGES,
      tools: [],
      maxNewTokens: 2
    });
    expect(fresh).toEqual([
      { type: 'error', id: 7, message: 'No model is loaded.' }
    ]);
  });
});

describe('encodePrompt', () => {
  it('continues a begun assistant message (a prefill) instead of closing it as a finished turn', async () => {
    ensureTinyModel();
    const lib = nodeTransformers();
    applySource(lib.env, {
      model: TINY_MODEL,
      revision: 'main',
      localModelPath: `${MODELS_DIR}/`,
      allowRemote: false
    });
    const tokenizer = await lib.AutoTokenizer.from_pretrained(TINY_MODEL);
    const ids = (messages: unknown[]) =>
      (
        encodePrompt(tokenizer, messages, []).input_ids.tolist()[0] as bigint[]
      ).map(Number);
    const prefill = '```python\n';
    const plain = ids(MESSAGES);
    const begun = ids([...MESSAGES, { role: 'assistant', content: prefill }]);
    // The generation prompt, then the begun reply, and nothing after it.
    expect(begun.slice(0, plain.length)).toEqual(plain);
    expect(tokenizer.decode(begun.slice(plain.length))).toBe(prefill);
    expect(tokenizer.decode(plain)).toMatch(/<\|im_start\|>assistant\n$/);
    // Without one, the template's own rendering, unchanged.
    expect(plain).toEqual(
      (
        (
          tokenizer.apply_chat_template(MESSAGES, {
            add_generation_prompt: true,
            return_dict: true
          }) as { input_ids: { tolist(): unknown[] } }
        ).input_ids.tolist()[0] as bigint[]
      ).map(Number)
    );
  }, 60000);
});
