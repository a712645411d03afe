/**
 * The text protocol, for models that cannot call tools: the model writes
 * fenced ```python blocks; each becomes a new cell that runs, and its output
 * comes back as the next user message. A reply without code ends the task.
 *
 * It is a decorator around any IModelClient, so the loop, approvals, undo
 * and observations stay exactly the same: code blocks are turned into calls
 * of one tool, `add_and_run_cell`: one model round trip per executed
 * cell, like `insert_cell` with `run: true`. What the model reads is
 * ./text-protocol-messages.ts; how its blocks are read, ./code-blocks.ts;
 * the tools they become, ./code-block-tools.ts.
 */
import type { IChatChunk, IChatRequest, IModelClient } from '../model/types';
import { FollowedChoice } from '../model/followed-choice';
import { REWRITE_TOOL, TEXT_PROTOCOL_TOOL } from './code-block-names';
import { extractCodeBlocks } from './code-blocks';
import {
  toTextProtocol,
  type ITextProtocolOptions
} from './text-protocol-messages';

/** How a reply that must be code is begun for the model. */
export const CODE_PREFILL = '```python\n';

/** Most code blocks run from one reply. */
const MAX_BLOCKS = 3;

/** Wraps a model without tool calling so the loop can use it as if it had. */
export class TextProtocolClient implements IModelClient {
  private _calls = 0;

  constructor(
    private readonly _inner: IModelClient,
    private readonly _options: ITextProtocolOptions = {}
  ) {}

  get model(): string {
    return this._inner.model;
  }

  // The endpoint's model list (for "unknown model" help) and its warm-up
  // are the inner client's.
  listModels(): Promise<string[]> {
    return this._inner.listModels?.() ?? Promise.resolve([]);
  }

  prepare(): void {
    this._inner.prepare?.();
  }

  async *streamChat(
    request: IChatRequest,
    signal: AbortSignal
  ): AsyncIterable<IChatChunk> {
    let text = '';
    // `required` here means "reply with code": the reply is begun for the
    // model (a prefill), which llama-server and Ollama continue. A server
    // that ignores it answers afresh, and the compute check remains.
    const prefill =
      request.prefill ??
      (request.toolChoice === 'required' ? CODE_PREFILL : '');
    const messages = toTextProtocol(request.messages, this._options);
    if (prefill) {
      messages.push({ role: 'assistant', content: prefill });
    }
    const inner = this._inner.streamChat(
      {
        messages,
        tools: [],
        ...(request.temperature !== undefined
          ? { temperature: request.temperature }
          : {})
      },
      signal
    );
    let first = true;
    const followed = new FollowedChoice();
    for await (const chunk of inner) {
      for (const choice of followed.pick(chunk.choices)) {
        // Strings only: the proxy's filter joins only strings to find a key
        // sent in pieces; an array would join as its item.
        const sent: unknown = choice.delta?.content;
        let content = typeof sent === 'string' ? sent : '';
        if (content && first && prefill) {
          first = false;
          // llama-server repeats the prefill in its first delta; a server
          // that continues without it gets it put back; one that answered
          // afresh (a new fence, or prose) is left as it answered.
          if (!content.startsWith(prefill) && !/^\s*```/.test(content)) {
            content = prefill + content;
          }
        }
        if (content) {
          text += content;
          yield { choices: [{ index: 0, delta: { content } }] };
        }
      }
      if (chunk.usage) {
        yield { choices: [], usage: chunk.usage };
      }
    }
    // A prefilled block cut off (length limit) or left open still runs.
    if (
      prefill &&
      text.startsWith(prefill) &&
      (text.match(/```/g) ?? []).length % 2
    ) {
      text += '\n```';
      yield { choices: [{ index: 0, delta: { content: '\n```' } }] };
    }
    const blocks = request.noCodeBlocks
      ? []
      : extractCodeBlocks(text).slice(0, MAX_BLOCKS);
    if (blocks.length) {
      yield {
        choices: [
          {
            index: 0,
            delta: {
              // A fix's request names the cell its code rewrites: then the
              // first block replaces that cell (one cell, one rewrite).
              tool_calls: (request.codeBlockCell
                ? blocks.slice(0, 1)
                : blocks
              ).map((source, index) => ({
                index,
                id: `text_call_${++this._calls}`,
                type: 'function',
                function: request.codeBlockCell
                  ? {
                      name: REWRITE_TOOL,
                      arguments: JSON.stringify({
                        cell_id: request.codeBlockCell,
                        source
                      })
                    }
                  : {
                      name: TEXT_PROTOCOL_TOOL,
                      arguments: JSON.stringify({ source })
                    }
              }))
            },
            finish_reason: 'tool_calls'
          }
        ]
      };
    }
  }
}
