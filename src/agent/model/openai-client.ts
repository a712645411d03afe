/**
 * IModelClient over any OpenAI-compatible endpoint, with the `openai` package.
 *
 * The package (~400 KB) is imported on first use, never at JupyterLab start.
 * We use the raw `create({ stream: true })` iterator rather than the SDK's
 * stream helper, which throws on servers that omit tool-call ids (vLLM).
 * It asks for token usage (`stream_options.include_usage`); servers that
 * reject unknown parameters get one retry without it, and then never again.
 * Retries are ours (./retry.ts: abortable, bounded waits), a stalled body
 * fails after an idle timeout (./idle-timeout.ts), and an answer that is
 * not a chat-completions stream is reported as such, never taken as an
 * empty reply.
 */
import type OpenAI from 'openai';
import type {
  ChatCompletionMessageParam,
  ChatCompletionTool,
  ChatCompletionToolChoiceOption
} from 'openai/resources/chat/completions';
import type { Completion } from 'openai/resources/completions';
import type {
  ICompletionRequest,
  ICompletionSource
} from '../completion/types';
import type { ChatMessage, IToolSpec } from '../types';
import type { FetchLike } from './fetch-like';
import { withBoundedChunks } from './bounded-chunks';
import { withKeyOutOfRequests } from './key-out-of-requests';
import { redactSecret } from './redact';
import { FollowedChoice } from './followed-choice';
import { ModelProtocolError } from './stream-errors';
import { DEFAULT_IDLE_TIMEOUT_MS, withIdleTimeout } from './idle-timeout';
import { requestSignal } from './request-signal';
import { withRetries } from './retry';
import type { IChatChunk, IChatRequest, IModelClient } from './types';

/** How to reach the endpoint. */
export interface IOpenAIClientOptions {
  /** Base URL, usually ending in `/v1`. */
  baseURL: string;
  /** Model name; empty lets a server-side default apply (the proxy fills it in). */
  model: string;
  /** Key sent as a Bearer token; a placeholder when a proxy adds the real one. */
  apiKey?: string;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
  /** A fetch wrapper, e.g. one that adds Jupyter's auth and XSRF headers. */
  fetch?: FetchLike;
  /**
   * Ask for a final usage chunk (`stream_options.include_usage`); default
   * true. Turned off for the client when the server rejects it.
   */
  includeUsage?: boolean;
  /**
   * Azure OpenAI (the package's `AzureOpenAI` client): `baseURL` is the
   * resource endpoint (https://NAME.openai.azure.com), requests go to the
   * deployment with `api-version` and the key in an `api-key` header.
   */
  azure?: { deployment: string; apiVersion: string };
  /**
   * Longest silence of a response body, in ms, before the request fails as
   * a stalled stream; default 5 min (slow local models process long
   * prompts before their first token). 0 turns it off.
   */
  idleTimeoutMs?: number;
  /** Retries before an answer starts (see ./retry.ts); default 2. */
  maxRetries?: number;
  /** Longest Retry-After honoured, in ms; default 20 s. */
  maxRetryWaitMs?: number;
  /**
   * Told when a chat request is sent (Date.now()) and null once its answer
   * begins (its first token) or the request ends without one: the time the
   * server reads the prompt, which the sidebar names ("Reading the
   * prompt…") as it does for the in-browser model.
   */
  onWait?: (since: number | null) => void;
}

type OpenAIClient = OpenAI;

/** What the endpoint's client offers, for those that hold it lazily (jupyter/core/lazy-openai-client.ts). */
export type IOpenAIChatClient = Required<
  Pick<
    IModelClient,
    'streamChat' | 'listModels' | 'prepare' | 'forcesToolCalls'
  >
> &
  ICompletionSource & { readonly model: string };

/** Streams chat turns from an OpenAI-compatible endpoint. */
export class OpenAIChatClient implements IModelClient, ICompletionSource {
  private _client: Promise<OpenAIClient> | null = null;
  private _includeUsage: boolean;
  private _forcesToolCalls: boolean | undefined;

  constructor(private readonly _options: IOpenAIClientOptions) {
    this._includeUsage = _options.includeUsage ?? true;
  }

  get model(): string {
    return this._options.model;
  }

  async *streamChat(
    request: IChatRequest,
    signal: AbortSignal
  ): AsyncIterable<IChatChunk> {
    const onWait = this._options.onWait;
    if (!onWait) {
      yield* this._streamChat(request, signal);
      return;
    }
    let waiting = true;
    onWait(Date.now());
    try {
      for await (const chunk of this._streamChat(request, signal)) {
        if (waiting && beginsAnswer(chunk)) {
          waiting = false;
          onWait(null);
        }
        yield chunk;
      }
    } finally {
      if (waiting) {
        onWait(null);
      }
    }
  }

  private async *_streamChat(
    request: IChatRequest,
    signal: AbortSignal
  ): AsyncIterable<IChatChunk> {
    const client = await this._getClient();
    const body = {
      model: this._options.model,
      messages: toOpenAIMessages(request.messages),
      ...(request.tools.length
        ? { tools: request.tools.map(toOpenAITool) }
        : {}),
      ...(request.tools.length && request.toolChoice
        ? { tool_choice: toOpenAIToolChoice(request.toolChoice) }
        : {}),
      ...(request.temperature !== undefined
        ? { temperature: request.temperature }
        : {}),
      stream: true as const
    };
    const key = this._options.apiKey;
    const own = requestSignal(signal);
    const create = () =>
      withRetries(
        () =>
          client.chat.completions.create(
            this._includeUsage
              ? { ...body, stream_options: { include_usage: true } }
              : body,
            { signal: own.signal }
          ),
        {
          signal,
          maxRetries: this._options.maxRetries,
          maxWaitMs: this._options.maxRetryWaitMs
        }
      );
    try {
      yield* this._streamFrom(create, body, signal, key);
    } finally {
      own.release();
    }
  }

  private async *_streamFrom(
    create: () => Promise<AsyncIterable<unknown>>,
    body: { tool_choice?: unknown },
    signal: AbortSignal,
    key: string | undefined
  ): AsyncIterable<IChatChunk> {
    let stream: AsyncIterable<unknown>;
    try {
      stream = await create();
    } catch (error) {
      if (!this._includeUsage || !rejectsStreamOptions(error)) {
        throw redactSecret(error, key);
      }
      // Some servers and gateways refuse parameters they do not know; usage
      // is a nicety, so drop it for this client rather than fail the turn.
      this._includeUsage = false;
      stream = await create().catch(again => {
        throw redactSecret(again, key);
      });
    }
    let chunks = 0;
    // What the server does with a required call is learned per client (one
    // per server and model: client-cache.ts) from the requests that ask.
    const forced =
      body.tool_choice !== undefined &&
      body.tool_choice !== 'auto' &&
      body.tool_choice !== 'none';
    let called = false;
    try {
      for await (const chunk of stream) {
        chunks += 1;
        called ||= !!(chunk as IChatChunk).choices?.[0]?.delta?.tool_calls
          ?.length;
        yield chunk as IChatChunk;
      }
    } catch (error) {
      if (error instanceof SyntaxError) {
        throw new ModelProtocolError(
          `an event is not valid JSON (${error.message})`
        );
      }
      throw redactSecret(error, key);
    }
    if (chunks === 0 && !signal.aborted) {
      throw new ModelProtocolError(
        'it contained no data events (an OpenAI-compatible stream sends `data: {…}` lines)'
      );
    }
    if (forced && !signal.aborted) {
      this._forcesToolCalls = called;
    }
  }

  /**
   * Inline completion (`ICompletionSource`): the completions API
   * (`/completions`), streamed, greedy, no retries (a suggestion that fails
   * is simply not shown; the next keystroke asks again). Aborting `signal`
   * closes the request, which the proxy passes on to the model server.
   */
  async *complete(
    request: ICompletionRequest,
    signal: AbortSignal
  ): AsyncIterable<string> {
    const client = await this._getClient();
    const key = this._options.apiKey;
    const own = requestSignal(signal);
    let stream: AsyncIterable<Completion>;
    try {
      stream = await client.completions.create(
        {
          model: this._options.model,
          prompt: request.prompt,
          ...(request.suffix !== undefined ? { suffix: request.suffix } : {}),
          max_tokens: request.maxTokens,
          temperature: 0,
          ...(request.stop.length ? { stop: request.stop } : {}),
          stream: true
        },
        { signal: own.signal }
      );
      const followed = new FollowedChoice();
      for await (const chunk of stream) {
        for (const choice of followed.pick(chunk.choices)) {
          // Strings only: the proxy's filter joins only strings to find a
          // key sent in pieces; `["sk-…"]` would join as its item.
          const text: unknown = choice.text;
          if (typeof text === 'string' && text) {
            yield text;
          }
        }
      }
    } catch (error) {
      throw redactSecret(error, key);
    } finally {
      own.release();
    }
  }

  forcesToolCalls(): boolean | undefined {
    return this._forcesToolCalls;
  }

  prepare(): void {
    // The `openai` chunk is large to evaluate; a failed import is retried.
    this._getClient().catch(() => undefined);
  }

  async listModels(): Promise<string[]> {
    const client = await this._getClient();
    const page = await client.models.list();
    return page.data.map(model => model.id);
  }

  private _getClient(): Promise<OpenAIClient> {
    if (!this._client) {
      const options = this._options;
      const boundedFetch = withIdleTimeout(
        withBoundedChunks(
          withKeyOutOfRequests(
            options.fetch ?? ((input, init) => fetch(input, init)),
            options.apiKey
          )
        ),
        options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS
      );
      this._client = import('openai').then(
        ({ default: OpenAI, AzureOpenAI }) =>
          options.azure
            ? new AzureOpenAI({
                endpoint: options.baseURL,
                deployment: options.azure.deployment,
                apiVersion: options.azure.apiVersion,
                apiKey: options.apiKey || 'unused',
                defaultHeaders: options.headers,
                fetch: boundedFetch,
                // Retries are ours (./retry.ts): abortable and bounded.
                maxRetries: 0,
                dangerouslyAllowBrowser: true
              })
            : new OpenAI({
                baseURL: options.baseURL,
                apiKey: options.apiKey || 'unused',
                defaultHeaders: options.headers,
                fetch: boundedFetch,
                // Retries are ours (./retry.ts): abortable and bounded.
                maxRetries: 0,
                dangerouslyAllowBrowser: true
              })
      );
      // A failed import must not poison later attempts.
      this._client.catch(() => (this._client = null));
    }
    return this._client;
  }
}

function toOpenAIToolChoice(
  choice: NonNullable<IChatRequest['toolChoice']>
): ChatCompletionToolChoiceOption {
  return typeof choice === 'string'
    ? choice
    : { type: 'function', function: { name: choice.name } };
}

/** A 400 (or 422) whose message names `stream_options`. */
function rejectsStreamOptions(error: unknown): boolean {
  const shape = (error ?? {}) as {
    status?: number;
    message?: string;
    error?: unknown;
  };
  const text = `${shape.message ?? ''} ${JSON.stringify(shape.error ?? '')}`;
  return (
    (shape.status === 400 || shape.status === 422) &&
    text.includes('stream_options')
  );
}

/** Convert our messages to the Chat Completions wire format. */
export function toOpenAIMessages(
  messages: ChatMessage[]
): ChatCompletionMessageParam[] {
  return messages.map(message => {
    switch (message.role) {
      case 'assistant':
        return {
          role: 'assistant' as const,
          // llama-cpp-python rejects `null` content next to tool calls; '' is
          // accepted by every server.
          content: message.content ?? '',
          ...(message.toolCalls?.length
            ? {
                tool_calls: message.toolCalls.map(call => ({
                  id: call.id,
                  type: 'function' as const,
                  function: { name: call.name, arguments: call.arguments }
                }))
              }
            : {})
        };
      case 'tool':
        return {
          role: 'tool' as const,
          tool_call_id: message.toolCallId,
          content: message.content
        };
      case 'system':
        return { role: 'system' as const, content: message.content };
      case 'user':
        return message.images?.length
          ? {
              role: 'user' as const,
              content: [
                { type: 'text' as const, text: message.content },
                ...message.images.map(image => ({
                  type: 'image_url' as const,
                  image_url: {
                    url: `data:${image.mime};base64,${image.base64}`
                  }
                }))
              ]
            }
          : { role: 'user' as const, content: message.content };
    }
  });
}

function toOpenAITool(tool: IToolSpec): ChatCompletionTool {
  return {
    type: 'function',
    function: {
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters
    }
  };
}

/** Whether `chunk` holds an answer's first token (a role alone does not). */
function beginsAnswer(chunk: IChatChunk): boolean {
  return (
    !!chunk.error ||
    !!chunk.choices?.some(
      choice =>
        !!choice.finish_reason ||
        !!choice.delta?.content ||
        !!choice.delta?.reasoning_content ||
        !!choice.delta?.reasoning ||
        !!choice.delta?.tool_calls?.length ||
        !!choice.delta?.function_call
    )
  );
}
