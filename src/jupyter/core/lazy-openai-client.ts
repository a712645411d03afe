/**
 * The endpoint's client as the model factory hands it out: a thin client
 * that imports the real one (agent/model/openai-client.ts, its retries,
 * stream checks and key filter) on its first use, so JupyterLab's start
 * does not load it (bench/lab-startup.ts; the shell builds a client for
 * the header's model name before anything is asked). Same shape as the
 * real one: chat turns, inline completion, the model list, `prepare`.
 */
import type {
  ICompletionRequest,
  ICompletionSource
} from '../../agent/completion/types';
import type {
  IOpenAIChatClient,
  IOpenAIClientOptions
} from '../../agent/model/openai-client';
import type {
  IChatChunk,
  IChatRequest,
  IModelClient
} from '../../agent/model/types';

/** Imports and delegates to `OpenAIChatClient` on first use. */
export class LazyOpenAIClient implements IModelClient, ICompletionSource {
  private _client: Promise<IOpenAIChatClient> | null = null;
  private _loaded: IOpenAIChatClient | null = null;

  constructor(private readonly _options: IOpenAIClientOptions) {}

  get model(): string {
    return this._options.model;
  }

  async *streamChat(
    request: IChatRequest,
    signal: AbortSignal
  ): AsyncIterable<IChatChunk> {
    yield* (await this._get()).streamChat(request, signal);
  }

  async *complete(
    request: ICompletionRequest,
    signal: AbortSignal
  ): AsyncIterable<string> {
    yield* (await this._get()).complete(request, signal);
  }

  async listModels(): Promise<string[]> {
    return (await this._get()).listModels();
  }

  /** Loads the client and its `openai` library ahead of the first request. */
  prepare(): void {
    this._get()
      .then(client => client.prepare())
      // A failed import is retried by the request, which reports it.
      .catch(() => undefined);
  }

  /** Undefined until the real client has seen a required call (it keeps what it saw). */
  forcesToolCalls(): boolean | undefined {
    return this._loaded?.forcesToolCalls();
  }

  private _get(): Promise<IOpenAIChatClient> {
    if (!this._client) {
      this._client = import('../../agent/model/openai-client').then(
        ({ OpenAIChatClient }) =>
          (this._loaded = new OpenAIChatClient(this._options))
      );
      this._client.catch(() => (this._client = null));
    }
    return this._client;
  }
}
