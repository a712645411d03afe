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
    try {
      for await (const chunk of this._inner.streamChat(request, signal)) {
        if (chunk.usage) {
          reported = true;
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
        this.promptTokens += estimateTokens(
          JSON.stringify(toOpenAIMessages(request.messages)) +
            JSON.stringify(request.tools)
        );
        this.completionTokens += Math.ceil(replyChars / 4);
      }
    }
  }

  listModels(): Promise<string[]> {
    return this._inner.listModels?.() ?? Promise.resolve([]);
  }
}
