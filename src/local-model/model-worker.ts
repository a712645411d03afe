/**
 * The local model's worker logic: load (down the device ladder, with
 * progress), generate (streaming text, special tokens kept), complete (raw
 * text, for inline completion), interrupt, reset, dispose. One model per
 * worker, one generation at a time.
 *
 * It receives the transformers.js module and a `post` function, so the Web
 * Worker (worker.ts) and Node tests run the same code.
 */
import {
  AllRungsFailedError,
  loadWithFallback,
  rungName,
  type IRung
} from '../agent/model/local/device-ladder';
import type {
  WorkerEvent,
  WorkerRequest
} from '../agent/model/local/worker-protocol';
import { failedUrl } from './fetch-failure';
import { applySource, describeSource } from './model-source';
import { ProgressTracker, type IProgressInfo } from './progress-tracker';
import { StopStringCutter } from './stop-strings';
import type {
  ICausalLMLike,
  IEncodedPrompt,
  IPastKeyValuesLike,
  ITensorLike,
  ITokenizerLike,
  ITransformersLike
} from './transformers-like';

/** Below this many common tokens, cutting the cache is not worth it. */
const MIN_REUSED_TOKENS = 8;

type LoadRequest = Extract<WorkerRequest, { type: 'load' }>;
type GenerateRequest = Extract<WorkerRequest, { type: 'generate' }>;
type CompleteRequest = Extract<WorkerRequest, { type: 'complete' }>;

/** The generation that runs now. */
/** One generation's bookkeeping (ModelWorker._startRun). */
interface IGeneration {
  readonly stopping: { interrupt(): void };
  interrupted: boolean;
  generated: number;
  /** Post a piece of text (nothing for an empty one). */
  send(text: string): void;
  /** A token was generated. */
  counted(): void;
  /** Post `done`: `ended` unless it was interrupted. */
  done(
    ended: 'stop' | 'length',
    promptTokens: number,
    reusedTokens: number
  ): void;
}

interface IRunning {
  id: number;
  kind: 'chat' | 'complete';
  /** Stop it after the current token (as `interrupted`). */
  interrupt(): void;
}

/** Handles the messages of one worker. */
export class LocalModelWorker {
  private _tokenizer: ITokenizerLike | null = null;
  private _model: ICausalLMLike | null = null;
  private _running: IRunning | null = null;
  /** Chat turns asked for and not finished (waiting or running). */
  private _chatTurns = 0;
  /** Completions waiting in the queue, and those of them interrupted. */
  private _waiting = new Set<number>();
  private _cancelled = new Set<number>();
  private _queue: Promise<void> = Promise.resolve();
  /** The token ids whose keys and values `_cache` holds. */
  private _cachedIds: bigint[] = [];
  private _cache: IPastKeyValuesLike | null = null;
  /** Where the model runs, once loaded. */
  private _rung: IRung | null = null;

  constructor(
    private readonly _lib: ITransformersLike,
    private readonly _post: (event: WorkerEvent) => void,
    /** Lets queued messages (interrupt) in between two tokens. */
    private readonly _yield: () => Promise<void> = defaultYield
  ) {}

  /** Handle one message; load, generate and dispose run one after another. */
  handle(request: WorkerRequest): Promise<void> {
    switch (request.type) {
      case 'interrupt':
        if (request.id === undefined || request.id === this._running?.id) {
          this._running?.interrupt();
        } else if (this._waiting.has(request.id)) {
          this._cancelled.add(request.id);
        }
        return Promise.resolve();
      case 'reset':
        return this._enqueue(0, () => this._dropCache());
      case 'load':
        return this._enqueue(request.id, () => this._load(request));
      case 'generate':
        // The agent's turn goes first: a completion that runs stops.
        this._chatTurns++;
        if (this._running?.kind === 'complete') {
          this._running.interrupt();
        }
        return this._enqueue(request.id, async () => {
          try {
            await this._generate(request);
          } finally {
            this._chatTurns--;
          }
        });
      case 'complete':
        if (this._chatTurns > 0) {
          this._refuse(request.id);
          return Promise.resolve();
        }
        this._waiting.add(request.id);
        return this._enqueue(request.id, () => {
          this._waiting.delete(request.id);
          const cancelled = this._cancelled.delete(request.id);
          if (cancelled || this._chatTurns > 0) {
            this._refuse(request.id);
            return Promise.resolve();
          }
          return this._complete(request);
        });
      case 'dispose':
        return this._enqueue(request.id, async () => {
          await this._dropCache();
          await this._model?.dispose();
          this._model = null;
          this._tokenizer = null;
          this._rung = null;
          this._post({ type: 'disposed', id: request.id });
        });
    }
  }

  private _enqueue(id: number, task: () => Promise<void>): Promise<void> {
    const run = this._queue.then(task).catch(error => {
      const url = failedUrl(error);
      const device = this._deviceOf(error);
      this._post({
        type: 'error',
        id,
        message: errorMessage(error),
        ...(url ? { url } : {}),
        ...(device ? { device } : {})
      });
    });
    this._queue = run;
    return run;
  }

  /** The device an error happened on: the loaded one, or the one rung that failed. */
  private _deviceOf(error: unknown): string | undefined {
    if (this._rung) {
      return rungName(this._rung);
    }
    if (error instanceof AllRungsFailedError && error.failures.length === 1) {
      return rungName(error.failures[0].rung);
    }
    return undefined;
  }

  private async _load(request: LoadRequest): Promise<void> {
    if (this._model) {
      throw new Error('This worker already holds a model; start a new worker.');
    }
    const started = Date.now();
    const { source } = request;
    applySource(this._lib.env, source, request.wasmPaths);
    const tracker = new ProgressTracker(request.id, this._post);
    const progress_callback = (info: IProgressInfo) => tracker.update(info);
    const common = { revision: source.revision, progress_callback };
    const tokenizer = await this._lib.AutoTokenizer.from_pretrained(
      source.model,
      common
    ).catch(error => {
      // transformers.js reads `tokenizer_class` of a config it did not find.
      throw /tokenizer_class/.test(errorMessage(error))
        ? new Error(
            `${source.model}/tokenizer_config.json was not found (${describeSource(source)})`
          )
        : error;
    });
    const { value: model, rung } = await loadWithFallback<ICausalLMLike>(
      request.rungs,
      async (r: IRung) => {
        const loading = this._lib.AutoModelForCausalLM.from_pretrained(
          source.model,
          { ...common, dtype: r.dtype, device: r.device }
        );
        const model = await loading;
        if (r.device === 'webgpu') {
          // The first run compiles the shaders: do it now, under "compiling".
          tracker.compiling();
          await model.generate({
            ...this._encode(tokenizer, [{ role: 'user', content: 'Hi' }], []),
            max_new_tokens: 1
          });
        }
        return model;
      },
      {
        onFallback: (failed, error, next) =>
          this._post({
            type: 'fallback',
            id: request.id,
            failed,
            next,
            error: errorMessage(error)
          })
      }
    );
    tracker.compiling();
    this._tokenizer = tokenizer;
    this._model = model;
    this._rung = rung;
    this._wrapForward(model);
    this._post({
      type: 'loaded',
      id: request.id,
      rung,
      seconds: (Date.now() - started) / 1000,
      startsInThinking: startsInThinking(tokenizer),
      endTokens: tokenizer.eos_token ? [tokenizer.eos_token] : []
    });
  }

  private async _generate(request: GenerateRequest): Promise<void> {
    const tokenizer = this._tokenizer;
    const model = this._model;
    if (!tokenizer || !model) {
      throw new Error('No model is loaded.');
    }
    const started = Date.now();
    const inputs = this._encode(tokenizer, request.messages, request.tools);
    const promptIds = (inputs.input_ids.tolist()[0] as bigint[]).map(BigInt);
    const reused = await this._reusableCache(promptIds);
    this._post({
      type: 'prompt',
      id: request.id,
      promptTokens: promptIds.length,
      reusedTokens: reused
    });
    const run = this._startRun(request.id, 'chat', started);
    const streamer = new this._lib.TextStreamer(tokenizer, {
      skip_prompt: true,
      skip_special_tokens: false,
      callback_function: run.send,
      token_callback_function: run.counted
    });
    try {
      const result = (await model.generate({
        ...inputs,
        ...(reused ? { past_key_values: this._cache } : {}),
        max_new_tokens: request.maxNewTokens,
        // Greedy unless the request samples (the agent's retry after a
        // refused repeat: agent/model/sampling.ts).
        ...(request.temperature
          ? { do_sample: true, temperature: request.temperature }
          : { do_sample: false }),
        streamer,
        stopping_criteria: [run.stopping],
        return_dict_in_generate: true
      })) as {
        sequences: { tolist(): unknown[] };
        past_key_values: IPastKeyValuesLike;
      };
      this._cache = result.past_key_values;
      const sequence = (result.sequences.tolist()[0] as bigint[]).map(BigInt);
      // The last token was sampled but never run through the model.
      this._cachedIds = sequence.slice(0, this._cache.get_seq_length());
    } finally {
      this._running = null;
    }
    run.done(
      run.generated >= request.maxNewTokens ? 'length' : 'stop',
      promptIds.length,
      reused
    );
  }

  /**
   * A raw-text completion. The chat's KV cache is neither used nor changed:
   * the completion runs from an empty cache, and generate() disposes the
   * one it built (no `past_key_values` in, no `return_dict_in_generate`).
   * A completion's prompt (code around the cursor) shares no prefix with
   * the chat's (the template's system prompt), so the chat cache could not
   * serve it; and resetting it instead would make the agent's next turn read
   * its whole prompt again (seconds, on the CPU) after every keystroke's
   * completion. Kept apart, the next turn reuses its cache as if no
   * completion had run.
   */
  private async _complete(request: CompleteRequest): Promise<void> {
    const tokenizer = this._tokenizer;
    const model = this._model;
    if (!tokenizer || !model) {
      throw new Error('No model is loaded.');
    }
    const started = Date.now();
    const inputs = encodeRaw(tokenizer, request.prompt);
    const promptTokens =
      inputs.input_ids.dims[inputs.input_ids.dims.length - 1];
    this._post({
      type: 'prompt',
      id: request.id,
      promptTokens,
      reusedTokens: 0
    });
    const run = this._startRun(request.id, 'complete', started);
    const ends = endTokenIds(tokenizer, model);
    const cutter = new StopStringCutter(request.stop);
    const ids: bigint[] = [];
    let ended = false;
    let prompt = true;
    // generate() calls put() with the prompt, then with each new token,
    // before it checks the stopping criteria: a stop found here stops it
    // after this token.
    const streamer = {
      put: (value: bigint[][]) => {
        if (prompt) {
          prompt = false;
          return;
        }
        run.counted();
        const token = value[0]?.[0];
        if (ended || token === undefined) {
          return;
        }
        if (ends.has(Number(token))) {
          ended = true;
          run.stopping.interrupt();
          return;
        }
        ids.push(token);
        run.send(
          cutter.update(tokenizer.decode(ids, { skip_special_tokens: false }))
        );
        if (cutter.stopped) {
          ended = true;
          run.stopping.interrupt();
        }
      },
      end: () => undefined
    };
    try {
      await model.generate({
        ...inputs,
        max_new_tokens: request.maxNewTokens,
        do_sample: false,
        streamer,
        stopping_criteria: [run.stopping]
      });
    } finally {
      this._running = null;
    }
    if (!run.interrupted) {
      run.send(cutter.finish());
    }
    run.done(
      ended || run.generated < request.maxNewTokens ? 'stop' : 'length',
      promptTokens,
      0
    );
  }

  /**
   * The bookkeeping of one generation, chat or completion alike: it becomes
   * the running one (interruptible by id), counts tokens and the first
   * one's time, sends text, and posts `done` with the reason (interrupted
   * wins over `ended`, the caller's reading of how it stopped).
   */
  private _startRun(
    id: number,
    kind: 'chat' | 'complete',
    started: number
  ): IGeneration {
    const stopping = new this._lib.InterruptableStoppingCriteria();
    let firstToken = 0;
    const run: IGeneration = {
      stopping,
      interrupted: false,
      generated: 0,
      send: (text: string) => {
        if (text) {
          this._post({ type: 'token', id, text });
        }
      },
      counted: () => {
        run.generated++;
        firstToken ||= Date.now();
      },
      done: (ended, promptTokens, reusedTokens) => {
        const seconds = (Date.now() - started) / 1000;
        this._post({
          type: 'done',
          id,
          reason: run.interrupted ? 'interrupted' : ended,
          promptTokens,
          completionTokens: run.generated,
          reusedTokens,
          seconds,
          firstTokenSeconds: firstToken
            ? (firstToken - started) / 1000
            : seconds
        });
      }
    };
    this._running = {
      id,
      kind,
      interrupt: () => {
        run.interrupted = true;
        stopping.interrupt();
      }
    };
    return run;
  }

  /** A completion that does not run: answered at once, with no tokens. */
  private _refuse(id: number): void {
    this._post({
      type: 'done',
      id,
      reason: 'interrupted',
      promptTokens: 0,
      completionTokens: 0,
      reusedTokens: 0,
      seconds: 0,
      firstTokenSeconds: 0
    });
  }

  private _encode(
    tokenizer: ITokenizerLike,
    messages: unknown[],
    tools: unknown[]
  ): IEncodedPrompt {
    return encodePrompt(tokenizer, messages, tools);
  }

  /**
   * How many prompt tokens the cache of the previous turn covers. Each step
   * of an agent run re-sends the history plus a little more, so the prompt
   * usually starts with the cached tokens: all of them are reused. When the
   * template rewrote the end (the previous answer re-rendered), a cache on
   * the CPU is cut back to the common prefix; one on the GPU (or one with
   * recurrent state, which cannot be cut) is dropped.
   */
  private async _reusableCache(promptIds: bigint[]): Promise<number> {
    const cache = this._cache;
    const cached = this._cachedIds;
    let common = 0;
    const limit = Math.min(cached.length, promptIds.length - 1);
    while (common < limit && cached[common] === promptIds[common]) {
      common++;
    }
    if (cache && common > 0 && common === cached.length) {
      return common;
    }
    const cropped =
      cache && common >= MIN_REUSED_TOKENS ? this._crop(cache, common) : null;
    await this._dropCache();
    if (!cropped) {
      return 0;
    }
    this._cache = cropped;
    this._cachedIds = cached.slice(0, common);
    return common;
  }

  /** The cache cut to its first `length` tokens; null when it cannot be cut. */
  private _crop(
    cache: IPastKeyValuesLike,
    length: number
  ): IPastKeyValuesLike | null {
    const entries = Object.entries(
      cache as unknown as Record<string, ITensorLike>
    );
    const cuttable = entries.every(
      ([name, tensor]) =>
        name.startsWith('past_key_values.') &&
        (tensor.location ?? 'cpu') === 'cpu' &&
        tensor.dims.length === 4
    );
    if (!entries.length || !cuttable) {
      return null;
    }
    return new this._lib.DynamicCache(
      Object.fromEntries(
        entries.map(([name, tensor]) => [
          name,
          tensor.slice(null, null, [0, length], null)
        ])
      )
    );
  }

  private async _dropCache(): Promise<void> {
    const cache = this._cache;
    this._cache = null;
    this._cachedIds = [];
    await cache?.dispose();
  }

  /** Yield to the event loop before each forward pass, so interrupt arrives. */
  private _wrapForward(model: ICausalLMLike): void {
    const forward = model.forward.bind(model);
    model.forward = async inputs => {
      await this._yield();
      return forward(inputs);
    };
  }
}

/** Whether the template's generation prompt opens a `<think>` block. */
function startsInThinking(tokenizer: ITokenizerLike): boolean {
  try {
    const text = tokenizer.apply_chat_template(
      [{ role: 'user', content: 'x' }],
      { add_generation_prompt: true, tokenize: false }
    );
    return typeof text === 'string' && /<think>\s*$/.test(text);
  } catch {
    return false;
  }
}

/** A macrotask boundary (MessageChannel: no 4 ms timer clamping). */
function defaultYield(): Promise<void> {
  return new Promise(resolve => {
    // Typed structurally: Node's MessagePort types lack `onmessage`.
    const channel = new MessageChannel() as unknown as {
      port1: { onmessage: (() => void) | null; close(): void };
      port2: { postMessage(value: null): void };
    };
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * A completion's prompt, tokenized as plain text: no chat template. The
 * tokenizer splits out the added tokens written in it (`<|fim_prefix|>`
 * becomes its one id, not the characters' pieces), and its post-processor
 * adds what it adds to any plain text: a BOS for tokenizers that begin every
 * text with one (Llama 3's), nothing for byte-level ones without (Qwen's,
 * SmolLM2's), as `tokenizer(text)` does in Python.
 */
export function encodeRaw(
  tokenizer: ITokenizerLike,
  prompt: string
): IEncodedPrompt {
  return tokenizer(prompt, { add_special_tokens: true, return_tensor: true });
}

/**
 * The tokens that end a completion, none of which is shown: the model's end
 * tokens (generation_config.json, where generate() stops too), the
 * tokenizer's, and every special token (code has none, and a FIM model ends
 * its middle with one: Qwen's `<|endoftext|>`, `<|fim_pad|>`, `<|file_sep|>`).
 */
export function endTokenIds(
  tokenizer: ITokenizerLike,
  model: ICausalLMLike
): Set<number> {
  const eos = model.generation_config?.eos_token_id;
  return new Set(
    [
      ...(Array.isArray(eos)
        ? eos
        : eos === undefined || eos === null
          ? []
          : [eos]),
      ...(typeof tokenizer.eos_token_id === 'number'
        ? [tokenizer.eos_token_id]
        : []),
      ...(tokenizer.all_special_ids ?? [])
    ].map(Number)
  );
}

/**
 * The prompt of a conversation, as the chat template renders it, with the
 * generation prompt. A conversation that ends with an assistant message
 * ends with the start of the reply (a prefill: the text protocol begins a
 * code block, or the answer line the request asked for), which the reply
 * continues, as llama-server and Ollama do: the begun reply follows the
 * generation prompt. (Rendered as it is, the chat template closes it as a
 * finished turn and opens a new one; Qwen2.5-Coder-0.5B then answered
 * afresh, and never got the code block or the answer line it was begun.)
 */
export function encodePrompt(
  tokenizer: ITokenizerLike,
  messages: unknown[],
  tools: unknown[]
): IEncodedPrompt {
  const options = {
    ...(tools.length ? { tools } : {}),
    add_generation_prompt: true
  };
  const last = messages[messages.length - 1] as
    { role?: unknown; content?: unknown } | undefined;
  if (
    last?.role !== 'assistant' ||
    typeof last.content !== 'string' ||
    !last.content
  ) {
    return tokenizer.apply_chat_template(messages, {
      ...options,
      return_dict: true
    }) as IEncodedPrompt;
  }
  const rendered = tokenizer.apply_chat_template(messages.slice(0, -1), {
    ...options,
    tokenize: false
  }) as string;
  // As apply_chat_template tokenizes what it renders.
  return tokenizer(rendered + last.content, {
    add_special_tokens: false,
    return_tensor: true
  });
}
