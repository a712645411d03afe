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
import { runWatchedCell } from '../tools/kernel-tools';
import { defineTool } from '../tools/registry';
import type { ChatMessage } from '../types';

/** The one tool the text protocol uses. */
export const TEXT_PROTOCOL_TOOL = 'add_and_run_cell';

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

/** `add_and_run_cell`: append a code cell and run it. */
export const addAndRunCell = defineTool<{ source: string }>({
  name: TEXT_PROTOCOL_TOOL,
  title: 'Insert and run this cell',
  kind: 'run',
  codeArgument: 'source',
  description: 'Append a code cell to the notebook and run it.',
  parameters: {
    type: 'object',
    properties: { source: { type: 'string' } },
    required: ['source'],
    additionalProperties: false
  },
  async execute(args, { notebook, signal, state }) {
    const cell = await notebook.insertCell({
      type: 'code',
      source: args.source
    });
    state.created.add(cell.id);
    state.seen.set(cell.id, cell.source);
    // The same watched run as run_cell and insert_cell's run: true.
    return runWatchedCell(notebook, cell.id, signal, state);
  }
});

/** The ```python (or untagged) blocks of a reply, in order. */
export function extractCodeBlocks(text: string): string[] {
  const blocks: string[] = [];
  const fence = /```(?:python|py|ipython)?[ \t]*\r?\n([\s\S]*?)```/g;
  for (let match = fence.exec(text); match; match = fence.exec(text)) {
    const code = match[1].replace(/\s+$/, '');
    if (code.trim()) {
      blocks.push(code);
    }
  }
  return blocks;
}

/**
 * `text` without the first fenced block whose code is `code` (the text
 * protocol's answer block that became a call): the transcript then shows
 * that code once, on its card. The model's own message keeps it.
 */
export function withoutCodeBlock(text: string, code: string): string {
  const fence = /```(?:python|py|ipython)?[ \t]*\r?\n([\s\S]*?)```/g;
  for (let match = fence.exec(text); match; match = fence.exec(text)) {
    if (match[1].replace(/\s+$/, '') === code) {
      const before = text.slice(0, match.index).replace(/\s+$/, '');
      const after = text
        .slice(match.index + match[0].length)
        .replace(/^\s+/, '');
      return before && after ? `${before}\n\n${after}` : before || after;
    }
  }
  return text;
}

/** The conversation as a model without tools sees it. */
export function toTextProtocol(messages: ChatMessage[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const message of messages) {
    if (message.role === 'system') {
      out.push({
        role: 'system',
        content: `${message.content}\n\n${TEXT_PROTOCOL_INSTRUCTIONS}`
      });
    } else if (message.role === 'assistant') {
      out.push({ role: 'assistant', content: message.content ?? '' });
    } else if (message.role === 'tool') {
      const last = out[out.length - 1];
      // A refusal ("Not run: …") is not output of the code.
      const text = message.content.startsWith('Not run:')
        ? message.content
        : `Output of the code you ran:\n${message.content}`;
      if (last?.role === 'user' && last.observation) {
        last.content += `\n\n${text}`;
      } else {
        out.push({ role: 'user', observation: true, content: text });
      }
    } else {
      out.push({ ...message });
    }
  }
  return out;
}

/** Wraps a model without tool calling so the loop can use it as if it had. */
export class TextProtocolClient implements IModelClient {
  private _calls = 0;

  constructor(private readonly _inner: IModelClient) {}

  get model(): string {
    return this._inner.model;
  }

  async *streamChat(
    request: IChatRequest,
    signal: AbortSignal
  ): AsyncIterable<IChatChunk> {
    let text = '';
    const inner = this._inner.streamChat(
      { messages: toTextProtocol(request.messages), tools: [] },
      signal
    );
    for await (const chunk of inner) {
      for (const choice of chunk.choices ?? []) {
        const content = choice.delta?.content;
        if (content) {
          text += content;
          yield { choices: [{ index: 0, delta: { content } }] };
        }
      }
      if (chunk.usage) {
        yield { choices: [], usage: chunk.usage };
      }
    }
    const blocks = extractCodeBlocks(text).slice(0, MAX_BLOCKS);
    if (blocks.length) {
      yield {
        choices: [
          {
            index: 0,
            delta: {
              tool_calls: blocks.map((source, index) => ({
                index,
                id: `text_call_${++this._calls}`,
                type: 'function',
                function: {
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
