/**
 * Counts the tokens a task spends. Uses the usage the endpoint reports;
 * for turns where it reports none (llama-cpp-python, some gateways),
 * estimates at 4 characters per token of the request and of the reply,
 * and says so.
 */
import { estimateTokens } from '../../src/agent/context/history';
import { toOpenAIMessages } from '../../src/agent/model/openai-client';
import type {
  IChatChunk,
  IChatRequest,
  IModelClient
} from '../../src/agent/model/types';

/** Wraps a client and adds up the tokens of every turn. */
export class MeteredModel implements IModelClient {
  promptTokens = 0;
  completionTokens = 0;
  /** True once any turn's figures were estimated rather than reported. */
  estimated = false;
  /** The first request's prompt tokens (reported, or estimated). */
  firstPromptTokens: number | null = null;
  /** Milliseconds from the first request to its first text or tool-call delta. */
  firstTokenMs: number | null = null;

  constructor(private readonly _inner: IModelClient) {}

  get model(): string {
    return this._inner.model;
  }

  async *streamChat(
    request: IChatRequest,
    signal: AbortSignal
  ): AsyncIterable<IChatChunk> {
    let reported = false;
    let replyChars = 0;
    const first = this.firstPromptTokens === null;
    const started = Date.now();
    try {
      for await (const chunk of this._inner.streamChat(request, signal)) {
        if (
          first &&
          this.firstTokenMs === null &&
          chunk.choices?.some(c => c.delta?.content || c.delta?.tool_calls)
        ) {
          this.firstTokenMs = Date.now() - started;
        }
        if (chunk.usage) {
          reported = true;
          if (first) {
            this.firstPromptTokens = chunk.usage.prompt_tokens ?? null;
          }
          this.promptTokens += chunk.usage.prompt_tokens ?? 0;
          this.completionTokens += chunk.usage.completion_tokens ?? 0;
        }
        for (const choice of chunk.choices ?? []) {
          replyChars += choice.delta?.content?.length ?? 0;
          for (const call of choice.delta?.tool_calls ?? []) {
            const args = call.function?.arguments;
            replyChars +=
              (call.function?.name?.length ?? 0) +
              (typeof args === 'string' ? args.length : 0);
          }
        }
        yield chunk;
      }
    } finally {
      if (!reported) {
        this.estimated = true;
        const estimate = estimateTokens(
          JSON.stringify(toOpenAIMessages(request.messages)) +
            JSON.stringify(request.tools)
        );
        if (first) {
          this.firstPromptTokens = estimate;
        }
        this.promptTokens += estimate;
        this.completionTokens += Math.ceil(replyChars / 4);
      }
    }
  }

  listModels(): Promise<string[]> {
    return this._inner.listModels?.() ?? Promise.resolve([]);
  }
}
