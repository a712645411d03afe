/**
 * The text protocol, for models that cannot call tools: the model writes
 * fenced ```python blocks; each becomes a new cell that runs, and its output
 * comes back as the next user message. A reply without code ends the task.
 *
 * It is a decorator around any IModelClient, so the loop, approvals, undo
 * and observations stay exactly the same: code blocks are turned into calls
 * of one tool, `add_and_run_cell`: one model round trip per executed
 * cell, like `insert_cell` with `run: true`.
 */
import type { IChatChunk, IChatRequest, IModelClient } from '../model/types';
import { describeFailure } from '../context/failure-focus';
import { isErrorObservation } from '../context/observations';
import type { ChatMessage } from '../types';
import { REWRITE_TOOL, TEXT_PROTOCOL_TOOL } from './code-block-names';

import { extractCodeBlocks, withoutGuessLines } from './code-blocks';

// Code blocks read (./code-blocks.ts), the tools they become
// (./code-block-tools.ts) and those tools' names (./code-block-names.ts),
// for the callers that know this module.
export {
  extractCodeBlocks,
  isAnswerLines,
  withoutCodeBlock,
  withoutGuessLines
} from './code-blocks';
export { addAndRunCell, rewriteAndRunCell } from './code-block-tools';
export {
  TEXT_PROTOCOL_TOOL,
  REWRITE_TOOL,
  isCodeBlockTool
} from './code-block-names';

/** How a reply that must be code is begun for the model. */
export const CODE_PREFILL = '```python\n';

/** Most code blocks run from one reply. */
const MAX_BLOCKS = 3;

/** Appended to the system prompt. */
export const TEXT_PROTOCOL_INSTRUCTIONS = [
  'You cannot call tools. To run Python in the notebook’s kernel, write it in a fenced block:',
  '```python',
  'print(df.describe())',
  '```',
  'Each block is added to the notebook as a new cell and run; its output is sent back to you.',
  'Write one block per reply, then stop and wait for the output.',
  'When the task is done, answer without any code block.'
].join('\n');

/** How much of the user's request an observation restates, at most. */
const RESTATED_CHARS = 600;

/**
 * The user's request, restated under an output for a small model: after a
 * page of output it has lost the question and the form of answer asked for
 * (measured with Qwen2.5-Coder-1.5B: right values, answered without the
 * asked-for `ANSWER:` line, or a next block that recomputed something else).
 */
export function restatement(request: string): string {
  const text =
    request.length > RESTATED_CHARS
      ? `${request.slice(0, RESTATED_CHARS)}…`
      : request;
  return (
    `The request you are working on:\n"""\n${text.trim()}\n"""\n` +
    'If the output answers it, reply now in words with the printed values, in the form the request asks for, ' +
    'and no code block; otherwise write the next ```python block.'
  );
}

/** Under an error, for small models: the next reply is the fix. */
export const FIX_REQUEST =
  'The code failed. Reply with the corrected code in one ```python block.';

/**
 * The fix asked for under an error, naming the error and the line that led
 * there when the output shows them (context/failure-focus.ts).
 */
export function fixRequest(observation: string): string {
  const failure = describeFailure(observation);
  return failure
    ? `The code ${failure}\nReply with the corrected code in one \`\`\`python block.`
    : FIX_REQUEST;
}

/**
 * A reply that runs code, as the model sees it later: its code, without the
 * words after the last block. Those were written before any output came, so
 * they are a guess (small models write `ANSWER: <made-up value>` there), and
 * shown back they were repeated as the answer over the real output
 * (Qwen2.5-Coder-1.5B: printed 0.9922, answered its earlier -0.4526).
 */
export function withoutTextAfterCode(text: string): string {
  const end = text.lastIndexOf('```');
  if (end < 0 || (text.match(/```/g) ?? []).length % 2) {
    return text;
  }
  return text.slice(0, end + 3);
}

/** Options of the text protocol. */
export interface ITextProtocolOptions {
  /**
   * For small models: restate the user's request under each output, name
   * the failure under each error, and drop the guesses written after code.
   */
  restateRequest?: boolean;
}

/** The conversation as a model without tools sees it. */
export function toTextProtocol(
  messages: ChatMessage[],
  options: ITextProtocolOptions = {}
): ChatMessage[] {
  const out: ChatMessage[] = [];
  let request = '';
  // Output messages and the request they answer, for the restatement.
  const outputs: Array<{
    message: ChatMessage;
    request: string;
    failed: string | null;
  }> = [];
  for (const message of messages) {
    if (message.role === 'system') {
      out.push({
        role: 'system',
        content: `${message.content}\n\n${TEXT_PROTOCOL_INSTRUCTIONS}`
      });
    } else if (message.role === 'assistant') {
      const content = message.content ?? '';
      out.push({
        role: 'assistant',
        content:
          options.restateRequest && message.toolCalls?.length
            ? withoutGuessLines(withoutTextAfterCode(content))
            : content
      });
    } else if (message.role === 'tool') {
      const last = out[out.length - 1];
      // A refusal ("Not run: …") is not output of the code.
      const text = message.content.startsWith('Not run:')
        ? message.content
        : `Output of the code you ran:\n${message.content}`;
      if (last?.role === 'user' && last.observation) {
        last.content += `\n\n${text}`;
      } else {
        const output: ChatMessage = {
          role: 'user',
          observation: true,
          content: text
        };
        out.push(output);
        outputs.push({
          message: output,
          request,
          failed: isErrorObservation(message.content) ? message.content : null
        });
      }
    } else {
      if (message.role === 'user' && !message.observation) {
        request = message.content;
      }
      out.push({ ...message });
    }
  }
  if (options.restateRequest) {
    for (const { message, request: asked, failed } of outputs) {
      if (message.role !== 'user') {
        continue;
      }
      // After an error, the request restated was copied back word for word
      // (Qwen2.5-Coder-1.5B); what helps there is asking for the fix.
      if (failed) {
        message.content += `\n\n${fixRequest(failed)}`;
      } else if (asked) {
        message.content += `\n\n${restatement(asked)}`;
      }
    }
  }
  return out;
}

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
    for await (const chunk of inner) {
      for (const choice of chunk.choices ?? []) {
        let content = choice.delta?.content;
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
