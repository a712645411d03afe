/**
 * IModelClient for a model that runs in the browser, in a Web Worker with
 * transformers.js. It loads the model on first use (down the device
 * ladder), sends each turn through the model's chat template, and turns
 * the streamed text into OpenAI-shaped chunks with the family's parser, so
 * the agent loop cannot tell it from a remote model. It is also a source of
 * inline completions (`complete`: the prompt as raw text, no template).
 *
 * The worker is reached through `IWorkerPort`, so tests can run the real
 * worker logic in-process.
 */
import type {
  ICompletionRequest,
  ICompletionSource
} from '../../completion/types';
import type { IChatChunk, IChatRequest, IModelClient } from '../types';
import type { ILocalModelEntry } from './catalogue';
import { rungName, type IDevicePlan, type IRung } from './device-ladder';
import { AsyncQueue } from './async-queue';
import { localModelError, type ILocalErrorContext } from './local-errors';
import { LocalModelStatusStore, type IPromptReading } from './load-status';
import { hostOf, modelFileUrl, PROBE_FILE } from './reachability';
import { toTemplateMessages, toTemplateTools } from './template-messages';
import { ToolCallParser } from './tool-call-parser';
import {
  WORKER_FAILED,
  type IModelSource,
  type WorkerEvent,
  type WorkerRequest
} from './worker-protocol';

/** A started worker. */
export interface IWorkerPort {
  post(message: WorkerRequest): void;
  /** Listen to the worker's events; returns the unsubscribe function. */
  listen(listener: (event: WorkerEvent) => void): () => void;
  /** End the worker (frees the model's memory). */
  terminate(): void;
}

/** Options of a local client. */
export interface ILocalModelClientOptions {
  entry: ILocalModelEntry;
  /** Where the weights come from (the model id and revision are the entry's). */
  source: Omit<IModelSource, 'model' | 'revision'>;
  /** Start the worker (called on first use). */
  createWorker(): IWorkerPort;
  /** Probe the device and plan the rungs (device-ladder.ts). */
  plan(entry: ILocalModelEntry): Promise<IDevicePlan>;
  /** URL of the folder holding onnxruntime's .wasm files. */
  wasmPaths?: string;
  /** Most tokens per answer; default 1024. */
  maxNewTokens?: number;
  /** Where progress goes; a private store when omitted. */
  status?: LocalModelStatusStore;
}

/** What loading found. */
export interface ILocalLoadInfo {
  rung: IRung;
  startsInThinking: boolean;
  endTokens: string[];
}

/** A local model behind the `IModelClient` interface. */
export class LocalModelClient implements IModelClient, ICompletionSource {
  readonly status: LocalModelStatusStore;
  private _port: IWorkerPort | null = null;
  private _loading: Promise<ILocalLoadInfo> | null = null;
  private _listeners = new Set<(event: WorkerEvent) => void>();
  private _nextRequest = 1;
  private _nextCallId = 0;
  /** The WebGPU adapter of the plan, for error messages. */
  private _adapter: string | undefined;

  constructor(private readonly _options: ILocalModelClientOptions) {
    this.status = _options.status ?? new LocalModelStatusStore();
  }

  get model(): string {
    return this._options.entry.id;
  }

  /** Load the model (once); later calls wait for the same load. */
  load(): Promise<ILocalLoadInfo> {
    if (!this._loading) {
      this._loading = this._load();
      // A failed load may be retried (after the user changed something).
      this._loading.catch(() => {
        this._loading = null;
        this._stopWorker();
      });
    }
    return this._loading;
  }

  async *streamChat(
    request: IChatRequest,
    signal: AbortSignal
  ): AsyncIterable<IChatChunk> {
    const info = await this.load();
    throwIfAborted(signal);
    const id = this._nextRequest++;
    const parser = new ToolCallParser({
      family: this._options.entry.family,
      firstId: this._nextCallId,
      startInThinking: info.startsInThinking,
      dropTokens: info.endTokens
    });
    const events = new AsyncQueue<WorkerEvent>();
    const off = this._listen(event => {
      if (event.id === id || event.id === WORKER_FAILED) {
        events.push(event);
      }
    });
    const onAbort = () => {
      this._port?.post({ type: 'interrupt' });
      events.close();
    };
    signal.addEventListener('abort', onAbort);
    const useTools = request.tools.length > 0 && request.toolChoice !== 'none';
    this._port?.post({
      type: 'generate',
      id,
      messages: toTemplateMessages(request.messages),
      tools: useTools ? toTemplateTools(request.tools) : [],
      maxNewTokens: this._options.maxNewTokens ?? 1024,
      ...(request.temperature ? { temperature: request.temperature } : {})
    });
    const started = Date.now();
    let tokens = 0;
    // The last answer's speed stays shown until this one measures its own.
    this.status.update({ stage: 'generating' });
    try {
      for await (const event of events) {
        if (event.type === 'prompt') {
          this.status.update({ prompt: promptReading(event, this.status) });
        } else if (event.type === 'token') {
          if (tokens === 0) {
            this.status.update({ prompt: undefined });
          }
          tokens++;
          const seconds = (Date.now() - started) / 1000;
          if (seconds > 0.5) {
            this.status.update({ tokensPerSecond: tokens / seconds });
          }
          yield* parser.push(event.text);
        } else if (event.type === 'done') {
          yield* parser.finish(event.reason === 'length' ? 'length' : 'stop');
          yield {
            choices: [],
            usage: {
              prompt_tokens: event.promptTokens,
              completion_tokens: event.completionTokens
            }
          };
          const decode = event.seconds - event.firstTokenSeconds;
          const read = event.promptTokens - event.reusedTokens;
          this.status.update({
            stage: 'ready',
            prompt: undefined,
            // Below a second the figure is mostly overhead, not reading.
            ...(event.firstTokenSeconds >= 1 && read > 0
              ? { promptTokensPerSecond: read / event.firstTokenSeconds }
              : {}),
            ...(decode > 0 && event.completionTokens > 1
              ? { tokensPerSecond: (event.completionTokens - 1) / decode }
              : {})
          });
          return;
        } else if (event.type === 'error') {
          const failure = this._error(event);
          this.status.update({ stage: 'error', error: failure.message });
          throw failure;
        }
      }
      throwIfAborted(signal);
    } finally {
      off();
      signal.removeEventListener('abort', onAbort);
      this._nextCallId = parser.nextId;
      if (this.status.getSnapshot().stage === 'generating') {
        this.status.update({ stage: 'ready', prompt: undefined });
      }
    }
  }

  /**
   * Stream a completion of `request.prompt`, tokenized as raw text (the
   * fill-in-the-middle tokens written in it become the model's own), after
   * loading the model if it is not loaded (the same load as chat's).
   * `request.suffix` is not read: the in-browser model has no separate
   * field for it, so a FIM prompt for it holds the suffix.
   *
   * Aborting `signal` (or leaving the loop early) interrupts the worker's
   * generation and ends the stream at once, without an error; so does the
   * worker's refusal while a chat turn runs (the stream is then empty). A
   * failed load or generation throws.
   */
  async *complete(
    request: ICompletionRequest,
    signal: AbortSignal
  ): AsyncIterable<string> {
    if (signal.aborted) {
      return;
    }
    // A load under way goes on for the next request; this one ends now.
    let onLoadAbort = () => {};
    const aborted = new Promise<void>(resolve => {
      onLoadAbort = resolve;
      signal.addEventListener('abort', onLoadAbort);
    });
    try {
      await Promise.race([this.load(), aborted]);
    } finally {
      signal.removeEventListener('abort', onLoadAbort);
    }
    if (signal.aborted) {
      return;
    }
    const id = this._nextRequest++;
    const events = new AsyncQueue<WorkerEvent>();
    const off = this._listen(event => {
      if (event.id === id || event.id === WORKER_FAILED) {
        events.push(event);
      }
    });
    let finished = false;
    const onAbort = () => events.close();
    signal.addEventListener('abort', onAbort);
    this._port?.post({
      type: 'complete',
      id,
      prompt: request.prompt,
      maxNewTokens: request.maxTokens,
      stop: request.stop
    });
    try {
      for await (const event of events) {
        if (signal.aborted) {
          return;
        }
        if (event.type === 'token') {
          yield event.text;
        } else if (event.type === 'done') {
          finished = true;
          return;
        } else if (event.type === 'error') {
          finished = true;
          throw this._error(event);
        }
      }
    } finally {
      off();
      signal.removeEventListener('abort', onAbort);
      if (!finished) {
        // Aborted, or the caller stopped reading: the worker stops too.
        this._port?.post({ type: 'interrupt', id });
      }
    }
  }

  /** Forget the cached prompt (a new chat). */
  reset(): void {
    this._port?.post({ type: 'reset' });
  }

  /** End the worker and free the model. */
  dispose(): void {
    this._port?.post({ type: 'dispose', id: 0 });
    this._stopWorker();
    this._loading = null;
    this.status.update({ stage: 'idle' });
  }

  private async _load(): Promise<ILocalLoadInfo> {
    const { entry } = this._options;
    this.status.update({
      model: entry.id,
      stage: 'download',
      loaded: 0,
      total: 0,
      percent: 0,
      fallbacks: [],
      error: undefined
    });
    try {
      const plan = await this._options.plan(entry);
      this._adapter = plan.adapter;
      this.status.update({ warning: plan.warning });
      if (!plan.rungs.length) {
        throw new Error(
          `${entry.label} ships no weights this browser can run (${entry.dtypes.join(', ')}).`
        );
      }
      const port = this._options.createWorker();
      this._port = port;
      port.listen(event => this._listeners.forEach(l => l(event)));
      const id = this._nextRequest++;
      const loaded = new Promise<ILocalLoadInfo>((resolve, reject) => {
        const off = this._listen(event => {
          if (event.id !== id && event.id !== WORKER_FAILED) {
            return;
          }
          if (event.type === 'progress') {
            this.status.update({
              stage: event.stage === 'ready' ? 'ready' : event.stage,
              file: event.file,
              loaded: event.loaded,
              total: event.total,
              percent: event.percent
            });
          } else if (event.type === 'fallback') {
            this.status.update({
              fallbacks: [
                ...this.status.getSnapshot().fallbacks,
                `${rungName(event.failed)} failed (${event.error}); trying ${rungName(event.next)}`
              ]
            });
          } else if (event.type === 'loaded') {
            off();
            resolve({
              rung: event.rung,
              startsInThinking: event.startsInThinking,
              endTokens: event.endTokens
            });
          } else if (event.type === 'error') {
            off();
            reject(this._error(event));
          }
        });
      });
      port.post({
        type: 'load',
        id,
        source: {
          ...this._options.source,
          model: entry.id,
          revision: entry.revision
        },
        rungs: plan.rungs,
        wasmPaths: this._options.wasmPaths
      });
      const info = await loaded;
      this.status.update({ stage: 'ready', rung: info.rung, percent: 100 });
      return info;
    } catch (error) {
      const failure =
        error instanceof Error && error.name === 'LocalModelError'
          ? error
          : localModelError(
              error instanceof Error ? error.message : String(error),
              this._context()
            );
      this.status.update({ stage: 'error', error: failure.message });
      throw failure;
    }
  }

  /** The worker's error, classified, with what it names of the failure. */
  private _error(event: Extract<WorkerEvent, { type: 'error' }>) {
    return localModelError(event.message, {
      ...this._context(),
      ...(event.url ? { url: event.url } : {}),
      ...(event.device ? { device: event.device } : {})
    });
  }

  /** What this client knows of where the model comes from and runs. */
  private _context(): ILocalErrorContext {
    const { entry, source } = this._options;
    const url = modelFileUrl(
      { ...source, model: entry.id, revision: entry.revision },
      PROBE_FILE
    );
    return {
      model: entry.id,
      ...(url ? { host: hostOf(url) } : {}),
      ...(this._adapter ? { adapter: this._adapter } : {})
    };
  }

  private _listen(listener: (event: WorkerEvent) => void): () => void {
    this._listeners.add(listener);
    return () => this._listeners.delete(listener);
  }

  private _stopWorker(): void {
    this._port?.terminate();
    this._port = null;
    this._listeners.clear();
  }
}

function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) {
    const error = new Error('Request was aborted.');
    error.name = 'AbortError';
    throw error;
  }
}

/** The prompt the worker started reading, with a guess from the last turn's speed. */
function promptReading(
  event: Extract<WorkerEvent, { type: 'prompt' }>,
  status: LocalModelStatusStore
): IPromptReading {
  const speed = status.getSnapshot().promptTokensPerSecond;
  const toRead = event.promptTokens - event.reusedTokens;
  return {
    tokens: event.promptTokens,
    reused: event.reusedTokens,
    ...(speed ? { estimateS: toRead / speed } : {})
  };
}
