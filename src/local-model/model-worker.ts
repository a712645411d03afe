/**
 * The local model's worker: it takes the main thread's messages (load,
 * generate, complete, interrupt, reset, dispose) and runs them one after
 * another, one model per worker, one generation at a time; the agent's turn
 * goes before inline completions. Each job is a module of its own: loading
 * (./model-loading.ts), a chat turn (./chat-turn.ts) with its cache
 * (./chat-cache.ts), a completion (./raw-completion.ts), and a generation's
 * bookkeeping (./generation.ts).
 *
 * It receives the transformers.js module and a `post` function, so the Web
 * Worker (worker.ts) and Node tests run the same code.
 */
import {
  AllRungsFailedError,
  rungName
} from '../agent/model/local/device-ladder';
import type {
  WorkerEvent,
  WorkerRequest
} from '../agent/model/local/worker-protocol';
import { ChatCache } from './chat-cache';
import { generateChatTurn } from './chat-turn';
import { errorMessage } from './error-message';
import { failedUrl } from './fetch-failure';
import {
  refusedCompletion,
  startGeneration,
  type BeginGeneration,
  type GenerationKind
} from './generation';
import { loadModel, loadedEvent, type ILoadedModel } from './model-loading';
import { completeRawText } from './raw-completion';
import type { ITransformersLike } from './transformers-like';

/** The generation that runs now. */
interface IRunning {
  id: number;
  kind: GenerationKind;
  /** Stop it after the current token (as `interrupted`). */
  interrupt(): void;
}

/** Handles the messages of one worker. */
export class LocalModelWorker {
  private _loaded: ILoadedModel | null = null;
  private _running: IRunning | null = null;
  /** Chat turns asked for and not finished (waiting or running). */
  private _chatTurns = 0;
  /** Completions waiting in the queue, and those of them interrupted. */
  private _waiting = new Set<number>();
  private _cancelled = new Set<number>();
  private _queue: Promise<void> = Promise.resolve();
  private readonly _cache: ChatCache;

  constructor(
    private readonly _lib: ITransformersLike,
    private readonly _post: (event: WorkerEvent) => void,
    /** Lets queued messages (interrupt) in between two tokens. */
    private readonly _yield: () => Promise<void> = defaultYield
  ) {
    this._cache = new ChatCache(_lib);
  }

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
        return this._enqueue(0, () => this._cache.drop());
      case 'load':
        return this._enqueue(request.id, async () => {
          if (this._loaded) {
            throw new Error(
              'This worker already holds a model; start a new worker.'
            );
          }
          const started = Date.now();
          const loaded = await loadModel(
            this._lib,
            request,
            this._post,
            this._yield
          );
          this._loaded = loaded;
          this._post(loadedEvent(request.id, loaded, started));
        });
      case 'generate':
        // The agent's turn goes first: a completion that runs stops.
        this._chatTurns++;
        if (this._running?.kind === 'complete') {
          this._running.interrupt();
        }
        return this._enqueue(request.id, async () => {
          try {
            await generateChatTurn(
              this._lib,
              this._model(),
              this._cache,
              request,
              this._post,
              this._begin
            );
          } finally {
            this._chatTurns--;
          }
        });
      case 'complete':
        if (this._chatTurns > 0) {
          this._post(refusedCompletion(request.id));
          return Promise.resolve();
        }
        this._waiting.add(request.id);
        return this._enqueue(request.id, () => {
          this._waiting.delete(request.id);
          const cancelled = this._cancelled.delete(request.id);
          if (cancelled || this._chatTurns > 0) {
            this._post(refusedCompletion(request.id));
            return Promise.resolve();
          }
          return completeRawText(
            this._model(),
            request,
            this._post,
            this._begin
          );
        });
      case 'dispose':
        return this._enqueue(request.id, async () => {
          await this._cache.drop();
          await this._loaded?.model.dispose();
          this._loaded = null;
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
    if (this._loaded) {
      return rungName(this._loaded.rung);
    }
    if (error instanceof AllRungsFailedError && error.failures.length === 1) {
      return rungName(error.failures[0].rung);
    }
    return undefined;
  }

  /** The loaded model, for a generation. */
  private _model(): ILoadedModel {
    if (!this._loaded) {
      throw new Error('No model is loaded.');
    }
    return this._loaded;
  }

  /** A generation begins: it is the running one until it is released. */
  private readonly _begin: BeginGeneration = (id, kind, started) => {
    const generation = startGeneration(
      this._lib,
      this._post,
      id,
      started,
      () => {
        this._running = null;
      }
    );
    this._running = { id, kind, interrupt: generation.interrupt };
    return generation;
  };
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
