/**
 * A scripted IModelClient for tests: plays pre-written turns as streamed
 * OpenAI-shaped chunks (tool-call arguments split across several chunks,
 * as real servers send them) and records every request it receives.
 */
import type { IChatChunk, IChatRequest, IModelClient } from '../model/types';

/** One scripted turn: text, tool calls, or an error to throw. */
export type ScriptedTurn =
  | { text: string }
  | {
      toolCalls: Array<{
        name: string;
        arguments: string | Record<string, unknown>;
        id?: string;
      }>;
      text?: string;
    }
  | { error: unknown }
  | { chunks: IChatChunk[]; thenError?: unknown };

/** Plays `turns` in order, one per `streamChat` call. */
export class ScriptedModel implements IModelClient {
  readonly model = 'scripted';
  /** Deep copies of the requests received, oldest first. */
  readonly requests: IChatRequest[] = [];
  /** Called before each chunk is yielded; tests use it to abort mid-stream. */
  onChunk: ((index: number) => void) | null = null;

  constructor(private _turns: ScriptedTurn[]) {}

  async *streamChat(
    request: IChatRequest,
    signal: AbortSignal
  ): AsyncIterable<IChatChunk> {
    this.requests.push(JSON.parse(JSON.stringify(request)));
    const turn = this._turns.shift();
    if (!turn) {
      throw new Error('ScriptedModel: no turns left');
    }
    if ('error' in turn) {
      throw turn.error;
    }
    const chunks = 'chunks' in turn ? turn.chunks : toChunks(turn);
    let index = 0;
    for (const chunk of chunks) {
      this.onChunk?.(index++);
      if (signal.aborted) {
        const error = new Error('aborted');
        error.name = 'AbortError';
        throw error;
      }
      await Promise.resolve();
      yield chunk;
    }
    if ('chunks' in turn && turn.thenError !== undefined) {
      throw turn.thenError;
    }
  }
}

function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) {
    out.push(text.slice(i, i + size));
  }
  return out;
}

/** The chunks a well-behaved OpenAI-compatible server streams for a turn. */
export function toChunks(
  turn: Exclude<ScriptedTurn, { error: unknown } | { chunks: IChatChunk[] }>
): IChatChunk[] {
  const chunks: IChatChunk[] = [
    { choices: [{ index: 0, delta: { content: '' } }] }
  ];
  const text = 'text' in turn ? (turn.text ?? '') : '';
  for (const piece of pieces(text, 5)) {
    chunks.push({ choices: [{ index: 0, delta: { content: piece } }] });
  }
  const calls = 'toolCalls' in turn ? turn.toolCalls : [];
  calls.forEach((call, index) => {
    const args =
      typeof call.arguments === 'string'
        ? call.arguments
        : JSON.stringify(call.arguments);
    chunks.push({
      choices: [
        {
          index: 0,
          delta: {
            tool_calls: [
              {
                index,
                id: call.id ?? `call_${index}`,
                type: 'function',
                function: { name: call.name, arguments: '' }
              }
            ]
          }
        }
      ]
    });
    for (const piece of pieces(args, 6)) {
      chunks.push({
        choices: [
          {
            index: 0,
            delta: { tool_calls: [{ index, function: { arguments: piece } }] }
          }
        ]
      });
    }
  });
  chunks.push({
    choices: [
      {
        index: 0,
        delta: {},
        finish_reason: calls.length ? 'tool_calls' : 'stop'
      }
    ]
  });
  chunks.push({
    choices: [],
    usage: { prompt_tokens: 10, completion_tokens: 3 }
  });
  return chunks;
}
