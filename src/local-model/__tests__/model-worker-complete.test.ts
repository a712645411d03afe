/**
 * @jest-environment ./jest/typed-array-environment.js
 */
/**
 * Raw-text completion (inline code completion) in the worker's logic, on
 * the tiny model (random weights, SmolLM2's tokenizer) with Qwen's FIM
 * tokens added to its tokenizer, run by transformers.js in Node. The model
 * is only spied on (the prompt ids it was given, the ids it generated).
 */
import { mkdtempSync, readFileSync, rmSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import {
  BUILTIN_MODELS,
  type ILocalModelEntry
} from '../../agent/model/local/catalogue';
import {
  LocalModelClient,
  type IWorkerPort
} from '../../agent/model/local/local-client';
import type {
  WorkerEvent,
  WorkerRequest
} from '../../agent/model/local/worker-protocol';
import { LocalModelWorker } from '../model-worker';
import { encodeRaw } from '../prompt-encoding';
import type { ITensorLike, ITransformersLike } from '../transformers-like';
import { FIM_TOKENS, nodeTransformers, writeFimTinyModel } from './tiny-model';

const PREFIX = 'def mean(xs):\n    return ';
const SUFFIX = '\n\nprint(mean([1, 2]))';
const FIM_PROMPT = `<|fim_prefix|>${PREFIX}<|fim_suffix|>${SUFFIX}<|fim_middle|>`;

const MESSAGES = [
  { role: 'system' as const, content: 'You are a data assistant.' },
  { role: 'user' as const, content: 'What is the mean of column a?' }
];

const ids = (tensor: unknown) =>
  ((tensor as ITensorLike).tolist()[0] as bigint[]).map(Number);

/** transformers.js, with each model's generate() watched. */
function spiedTransformers(calls: Array<{ prompt: number[]; out: number[] }>) {
  const lib = nodeTransformers();
  const spied: ITransformersLike = {
    ...lib,
    AutoModelForCausalLM: {
      from_pretrained: async (id, options) => {
        const model = await lib.AutoModelForCausalLM.from_pretrained(
          id,
          options
        );
        const generate = model.generate.bind(model);
        model.generate = async options => {
          const result = await generate(options);
          const sequences =
            (result as { sequences?: unknown }).sequences ?? result;
          calls.push({ prompt: ids(options.input_ids), out: ids(sequences) });
          return result;
        };
        return model;
      }
    }
  };
  return spied;
}

/** A worker on one model folder, with its events and generate() calls. */
async function startWorker(root: string, name: string) {
  const events: WorkerEvent[] = [];
  const calls: Array<{ prompt: number[]; out: number[] }> = [];
  const listeners = new Set<(event: WorkerEvent) => void>();
  const worker = new LocalModelWorker(spiedTransformers(calls), event => {
    events.push(event);
    listeners.forEach(listener => listener(event));
  });
  await worker.handle({
    type: 'load',
    id: 1,
    source: {
      model: name,
      revision: 'main',
      localModelPath: `${root}/`,
      allowRemote: false
    },
    rungs: [{ device: 'wasm', dtype: 'q4' }]
  });
  expect(events.filter(e => e.type === 'error')).toEqual([]);
  const of = (id: number) => events.filter(e => e.id === id);
  return {
    worker,
    events,
    calls,
    listeners,
    of,
    text: (id: number) =>
      of(id)
        .map(e => (e.type === 'token' ? e.text : ''))
        .join(''),
    done: (id: number) =>
      of(id).find(
        (e): e is Extract<WorkerEvent, { type: 'done' }> => e.type === 'done'
      )
  };
}

type Started = Awaited<ReturnType<typeof startWorker>>;

const complete = (
  id: number,
  prompt = FIM_PROMPT,
  maxNewTokens = 40,
  stop: string[] = []
): WorkerRequest => ({ type: 'complete', id, prompt, maxNewTokens, stop });

describe('LocalModelWorker: complete (raw text, inline completion)', () => {
  let root: string;
  let w: Started;
  /** The tokenizer of the FIM model, as the worker loads it. */
  let encode: (text: string) => number[];
  let decode: (ids: number[]) => string;
  /** The first completion: its generated ids and its text. */
  let generated: number[];
  let promptIds: number[];
  let firstText: string;

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'fim-tiny-'));
    writeFimTinyModel(root, 'fim-llama');
    w = await startWorker(root, 'fim-llama');
    const tokenizer =
      await nodeTransformers().AutoTokenizer.from_pretrained('fim-llama');
    encode = text => ids(encodeRaw(tokenizer, text).input_ids);
    decode = ids => tokenizer.decode(ids);
  }, 120000);

  afterAll(async () => {
    await w?.worker.handle({ type: 'dispose', id: 99 });
    rmSync(root, { recursive: true, force: true });
  });

  it('completes a raw prompt: no chat template, each FIM token its one id, no BOS added', async () => {
    await w.worker.handle(complete(10));
    expect(w.of(10).filter(e => e.type === 'error')).toEqual([]);
    const [call] = w.calls.splice(0);
    // The FIM tokens are ids 3-5, as the tokenizer defines them, and the
    // text between them is tokenized as plain text; nothing before.
    expect(call.prompt).toEqual([
      3,
      ...encode(PREFIX),
      4,
      ...encode(SUFFIX),
      5
    ]);
    expect(FIM_TOKENS.map(t => encode(t))).toEqual([[3], [4], [5]]);
    // No template: neither <|im_start|> (1) nor a system prompt.
    expect(call.prompt).not.toContain(1);
    expect(w.of(10)[0]).toEqual({
      type: 'prompt',
      id: 10,
      promptTokens: call.prompt.length,
      reusedTokens: 0
    });
    promptIds = call.prompt;
    generated = call.out.slice(call.prompt.length);
    expect(generated).toHaveLength(40);
    firstText = w.text(10);
    expect(firstText.length).toBeGreaterThan(20);
    expect(w.done(10)).toMatchObject({
      reason: 'length',
      promptTokens: call.prompt.length,
      completionTokens: 40,
      reusedTokens: 0
    });
    // Greedy: the same prompt, the same completion.
    await w.worker.handle(complete(11));
    expect(w.text(11)).toBe(firstText);
    w.calls.splice(0);
  });

  it('cuts the text at the first stop string (split across tokens), which it leaves out', async () => {
    // A stop string of the last 2 characters of the 10th token and the
    // first 2 of the 11th.
    const cut = decode(generated.slice(0, 10)).length;
    const stop = firstText.slice(cut - 2, cut + 2);
    const expected = firstText.slice(0, firstText.indexOf(stop));
    await w.worker.handle(complete(12, FIM_PROMPT, 40, ['\n\n\n\n', stop]));
    expect(w.text(12)).toBe(expected);
    const done = w.done(12);
    expect(done).toMatchObject({ reason: 'stop' });
    // It stopped generating there, not at max_new_tokens.
    expect(done?.completionTokens).toBeLessThan(40);
    w.calls.splice(0);
  });

  it('stops within one token of an interrupt, as interrupted', async () => {
    let seen = 0;
    const onToken = (event: WorkerEvent) => {
      if (event.type === 'token' && event.id === 13 && ++seen === 3) {
        void w.worker.handle({ type: 'interrupt', id: 13 });
      }
    };
    w.listeners.add(onToken);
    await w.worker.handle(complete(13, FIM_PROMPT, 400));
    w.listeners.delete(onToken);
    const done = w.done(13);
    expect(done).toMatchObject({ reason: 'interrupted' });
    expect(done?.completionTokens).toBeGreaterThanOrEqual(3);
    expect(done?.completionTokens).toBeLessThan(3 + 8);
  });

  it('answers a complete at once, interrupted and empty, while a chat turn runs or waits', async () => {
    const chat = w.worker.handle({
      type: 'generate',
      id: 20,
      messages: MESSAGES,
      tools: [],
      maxNewTokens: 8
    });
    await w.worker.handle(complete(21));
    expect(w.of(21)).toEqual([
      {
        type: 'done',
        id: 21,
        reason: 'interrupted',
        promptTokens: 0,
        completionTokens: 0,
        reusedTokens: 0,
        seconds: 0,
        firstTokenSeconds: 0
      }
    ]);
    // Answered before the chat turn ended, which went on undisturbed.
    expect(w.done(20)).toBeUndefined();
    await chat;
    expect(w.done(20)).toMatchObject({ reason: 'length', completionTokens: 8 });
    // Once the turn is over, completions run again.
    await w.worker.handle(complete(22, FIM_PROMPT, 4));
    expect(w.done(22)).toMatchObject({ reason: 'length', completionTokens: 4 });
  });

  it('stops a running completion when a chat turn arrives', async () => {
    let chat: Promise<void> | null = null;
    const onToken = (event: WorkerEvent) => {
      if (event.type === 'token' && event.id === 30 && !chat) {
        chat = w.worker.handle({
          type: 'generate',
          id: 31,
          messages: MESSAGES,
          tools: [],
          maxNewTokens: 4
        });
      }
    };
    w.listeners.add(onToken);
    await w.worker.handle(complete(30, FIM_PROMPT, 400));
    w.listeners.delete(onToken);
    expect(w.done(30)).toMatchObject({ reason: 'interrupted' });
    expect(w.done(30)?.completionTokens).toBeLessThan(10);
    await chat;
    expect(w.done(31)).toMatchObject({ reason: 'length', completionTokens: 4 });
  });

  it('interrupts by id: another request goes on, a waiting completion ends unrun', async () => {
    let sent = false;
    const onToken = (event: WorkerEvent) => {
      if (event.type === 'token' && event.id === 40 && !sent) {
        sent = true;
        void w.worker.handle({ type: 'interrupt', id: 41 });
        void w.worker.handle({ type: 'interrupt', id: 999 });
      }
    };
    w.listeners.add(onToken);
    const first = w.worker.handle(complete(40, FIM_PROMPT, 12));
    const second = w.worker.handle(complete(41));
    await Promise.all([first, second]);
    w.listeners.delete(onToken);
    expect(w.done(40)).toMatchObject({
      reason: 'length',
      completionTokens: 12
    });
    expect(w.of(41)).toEqual([
      expect.objectContaining({
        type: 'done',
        reason: 'interrupted',
        completionTokens: 0
      })
    ]);
  });

  it("leaves the chat's KV cache as it was", async () => {
    const turn = (id: number) =>
      w.worker.handle({
        type: 'generate',
        id,
        messages: MESSAGES,
        tools: [],
        maxNewTokens: 6
      });
    await w.worker.handle({ type: 'reset' });
    await turn(50);
    await w.worker.handle(complete(51, FIM_PROMPT, 6));
    expect(w.done(51)).toMatchObject({ reason: 'length' });
    await turn(52);
    // The same prompt again: all of it came from the cache but its last
    // token (which must go through the model to give the first new one),
    // as with no completion in between, and it gave the same tokens as the
    // turn from an empty cache.
    expect(w.done(52)?.reusedTokens).toBe(w.done(50)!.promptTokens - 1);
    expect(w.text(52)).toBe(w.text(50));
  });

  it('ends at an end-of-text token, whose text it leaves out', async () => {
    // The fifth token of the first completion made an end token of the
    // model (generation_config.json) in a copy.
    const end = generated.indexOf(generated[4]);
    writeFimTinyModel(root, 'fim-llama-eos', {
      generation: { eos_token_id: [2, generated[4]] }
    });
    const eos = await startWorker(root, 'fim-llama-eos');
    await eos.worker.handle(complete(60));
    const tokenizer =
      await nodeTransformers().AutoTokenizer.from_pretrained('fim-llama-eos');
    expect(eos.text(60)).toBe(tokenizer.decode(generated.slice(0, end)));
    expect(eos.done(60)).toMatchObject({
      reason: 'stop',
      completionTokens: end + 1
    });
    await eos.worker.handle({ type: 'dispose', id: 99 });
  });

  it('ends at any special token, whose text it leaves out', async () => {
    // The same token made an added special token of the tokenizer instead.
    const end = generated.indexOf(generated[4]);
    const tokenizer =
      await nodeTransformers().AutoTokenizer.from_pretrained('fim-llama');
    const vocab = (
      JSON.parse(
        readFileSync(path.join(root, 'fim-llama', 'tokenizer.json'), 'utf8')
      ) as { model: { vocab: Record<string, number> } }
    ).model.vocab;
    const content = Object.keys(vocab).find(k => vocab[k] === generated[4])!;
    writeFimTinyModel(root, 'fim-llama-special', {
      edit: json =>
        json.added_tokens.push({ id: generated[4], content, special: true })
    });
    const special = await startWorker(root, 'fim-llama-special');
    await special.worker.handle(complete(70));
    // The prompt was tokenized as before, so the model went the same way.
    expect(special.calls[0].prompt).toEqual(promptIds);
    expect(special.text(70)).toBe(tokenizer.decode(generated.slice(0, end)));
    expect(special.done(70)).toMatchObject({
      reason: 'stop',
      completionTokens: end + 1
    });
    await special.worker.handle({ type: 'dispose', id: 99 });
  });
});

describe('encodeRaw', () => {
  it('adds a BOS only where the tokenizer adds one to plain text', async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'fim-bos-'));
    try {
      writeFimTinyModel(root, 'plain');
      // A Llama-3-like post-processor: every text begins with id 0.
      writeFimTinyModel(root, 'with-bos', {
        edit: json => {
          json.post_processor = {
            type: 'TemplateProcessing',
            single: [
              { SpecialToken: { id: '<|endoftext|>', type_id: 0 } },
              { Sequence: { id: 'A', type_id: 0 } }
            ],
            pair: [],
            special_tokens: {
              '<|endoftext|>': { id: '<|endoftext|>', ids: [0], tokens: [] }
            }
          };
        }
      });
      const lib = nodeTransformers();
      lib.env.localModelPath = `${root}/`;
      lib.env.allowLocalModels = true;
      lib.env.allowRemoteModels = false;
      const plain = ids(
        encodeRaw(await lib.AutoTokenizer.from_pretrained('plain'), FIM_PROMPT)
          .input_ids
      );
      const withBos = ids(
        encodeRaw(
          await lib.AutoTokenizer.from_pretrained('with-bos'),
          FIM_PROMPT
        ).input_ids
      );
      expect(plain[0]).toBe(3);
      expect(withBos).toEqual([0, ...plain]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('LocalModelClient.complete on the worker in-process', () => {
  it('streams, and its abort stops the generation in the worker', async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'fim-client-'));
    writeFimTinyModel(root, 'fim-llama');
    const events: WorkerEvent[] = [];
    const requests: WorkerRequest[] = [];
    const listeners = new Set<(event: WorkerEvent) => void>();
    const worker = new LocalModelWorker(nodeTransformers(), event => {
      events.push(event);
      listeners.forEach(listener => listener(event));
    });
    const port: IWorkerPort = {
      post: message => {
        requests.push(message);
        void worker.handle(message);
      },
      listen: listener => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
      terminate: () => void worker.handle({ type: 'dispose', id: 0 })
    };
    const entry: ILocalModelEntry = {
      ...BUILTIN_MODELS.find(
        m => m.id === 'HuggingFaceTB/SmolLM2-135M-Instruct'
      )!,
      id: 'fim-llama',
      revision: 'main'
    };
    const client = new LocalModelClient({
      entry,
      source: { localModelPath: `${root}/`, allowRemote: false },
      createWorker: () => port,
      plan: async () => ({
        rungs: [{ device: 'wasm', dtype: 'q4' }],
        warning: null
      })
    });
    try {
      const whole: string[] = [];
      for await (const text of client.complete(
        { prompt: FIM_PROMPT, stop: [], maxTokens: 10 },
        new AbortController().signal
      )) {
        whole.push(text);
      }
      expect(whole.length).toBeGreaterThan(1);

      const controller = new AbortController();
      const pieces: string[] = [];
      for await (const text of client.complete(
        { prompt: FIM_PROMPT, stop: [], maxTokens: 400 },
        controller.signal
      )) {
        pieces.push(text);
        if (pieces.length === 2) {
          controller.abort();
        }
      }
      expect(pieces).toEqual(whole.slice(0, 2));
      // Requests 1 (load), 2 (the first completion), 3 (this one).
      const last = requests[requests.length - 1];
      expect(last).toEqual({ type: 'interrupt', id: 3 });
      // The worker's generation stopped: wait for its done.
      await new Promise<void>(resolve => {
        const check = () =>
          events.some(e => e.type === 'done' && e.id === 3) && resolve();
        listeners.add(check);
        check();
      });
      const done = events.find(e => e.type === 'done' && e.id === 3);
      expect(done).toMatchObject({ reason: 'interrupted' });
      expect(done?.type === 'done' && done.completionTokens).toBeLessThan(10);
    } finally {
      client.dispose();
      rmSync(root, { recursive: true, force: true });
    }
  }, 60000);
});
