/**
 * IModelClient: the one thing the loop needs from a model.
 *
 * Every client (remote OpenAI-compatible endpoints, and later the in-browser
 * local model) streams OpenAI-shaped chunks, so one accumulator serves all.
 * The chunk types are deliberately loose: they describe what servers really
 * send (see accumulator.ts), not only what the OpenAI spec allows.
 */
import type { ChatMessage, IToolSpec } from '../types';

/**
 * Tool-call arguments: a JSON text, or (some servers) the object itself.
 */
export type ToolArgumentsDelta = string | Record<string, unknown> | null;

/** A tool-call fragment as OpenAI-compatible servers stream it. */
export interface IToolCallDelta {
  /** Missing on some servers, or restarting at 0 for every call (Ollama). */
  index?: number | null;
  /** Missing (vLLM), empty (LM Studio) or repeated on every delta (llama.cpp). */
  id?: string | null;
  type?: string | null;
  function?: { name?: string | null; arguments?: ToolArgumentsDelta } | null;
}

/** The `delta` of one streamed choice. */
export interface IChatDelta {
  content?: string | null;
  /** Thinking text (DeepSeek, vLLM, llama.cpp). */
  reasoning_content?: string | null;
  /** Thinking text (OpenRouter, Ollama, newer vLLM). */
  reasoning?: string | null;
  tool_calls?: IToolCallDelta[] | null;
  /** The legacy single function call, from before `tool_calls`. */
  function_call?: {
    name?: string | null;
    arguments?: ToolArgumentsDelta;
  } | null;
}

/** An error object a server sends inside a 200 stream. */
export interface IStreamErrorBody {
  message?: string;
  type?: string;
  code?: string | number | null;
}

/** The subset of a `chat.completion.chunk` the agent reads. */
export interface IChatChunk {
  choices?: Array<{
    index?: number;
    delta?: IChatDelta | null;
    finish_reason?: string | null;
  }> | null;
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
  /** A failure mid-stream: an object (OpenAI, vLLM) or a string (TGI). */
  error?: IStreamErrorBody | string | null;
}

/** One request for a model turn. */
export interface IChatRequest {
  messages: ChatMessage[];
  tools: IToolSpec[];
  /**
   * Force (or forbid) tool use: `required`, or the name of one tool. Left
   * out, the model decides (`auto`). Small models may need a forced call.
   */
  toolChoice?: 'auto' | 'required' | 'none' | { name: string };
  /**
   * Sampling temperature; left out, the server's default. The small profile
   * samples greedily (0): see model/sampling.ts.
   */
  temperature?: number;
  /**
   * The start of the reply, for a model that continues a begun assistant
   * message (the text protocol: llama-server, Ollama). Left out, a
   * `required` tool choice there begins a code block.
   */
  prefill?: string;
  /**
   * The text protocol, in a turn that rewrites one cell (a fix): the id of
   * that cell, whose new source the reply's code block is.
   */
  codeBlockCell?: string;
  /** The text protocol: the reply's code blocks are words, not code to run (a plan). */
  noCodeBlocks?: boolean;
}

/** Streams one model turn. */
export interface IModelClient {
  /** Model name, for display. */
  readonly model: string;
  /**
   * Stream the chunks of one turn. Aborting `signal` ends the stream; errors
   * (HTTP, network) are thrown and classified by `describeModelError`.
   */
  streamChat(
    request: IChatRequest,
    signal: AbortSignal
  ): AsyncIterable<IChatChunk>;
  /** The endpoint's model ids, where it lists them (for "unknown model" help). */
  listModels?(): Promise<string[]>;
  /**
   * Load what the first request needs (its library) ahead of it, while the
   * user types; a failure is left for the request to report.
   */
  prepare?(): void;
  /**
   * Whether this server made the model call a tool when a request required
   * one (`toolChoice` `required` or a named tool), as last seen; undefined
   * before such a request. Measured: llama-server with Qwen2.5-Coder
   * ignores both and answers in plain text (docs/evaluation.md, "Real models").
   */
  forcesToolCalls?(): boolean | undefined;
}
