/**
 * IModelClient: the one thing the loop needs from a model.
 *
 * Every client (remote OpenAI-compatible endpoints, and later the in-browser
 * local model) streams OpenAI-shaped chunks, so one accumulator serves all.
 */
import type { ChatMessage, IToolSpec } from '../types';

/** A tool-call fragment as OpenAI-compatible servers stream it. */
export interface IToolCallDelta {
  index?: number;
  id?: string | null;
  type?: string | null;
  function?: { name?: string | null; arguments?: string | null } | null;
}

/** The subset of a `chat.completion.chunk` the agent reads. */
export interface IChatChunk {
  choices?: Array<{
    index?: number;
    delta?: {
      content?: string | null;
      tool_calls?: IToolCallDelta[] | null;
    } | null;
    finish_reason?: string | null;
  }> | null;
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
}

/** One request for a model turn. */
export interface IChatRequest {
  messages: ChatMessage[];
  tools: IToolSpec[];
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
}
