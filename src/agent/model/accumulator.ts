/**
 * Accumulates streamed chunks into one assistant turn: text, tool calls and
 * the finish reason.
 *
 * Tool calls arrive as fragments keyed by `index`: the first usually carries
 * the id and name, later ones append argument text. Some servers omit the
 * index or the id, so both have fallbacks.
 */
import type { FinishReason, IToolCall, IUsage } from '../types';
import type { IChatChunk, IToolCallDelta } from './types';

/** The finished turn. */
export interface IAssistantTurn {
  text: string;
  toolCalls: IToolCall[];
  finishReason: FinishReason;
  usage?: IUsage;
}

const KNOWN_REASONS: ReadonlySet<string> = new Set([
  'stop',
  'tool_calls',
  'length',
  'content_filter'
]);

/** Builds an `IAssistantTurn` from streamed chunks. */
export class TurnAccumulator {
  private _text = '';
  private _calls = new Map<number, IToolCall>();
  private _finish: FinishReason | null = null;
  private _usage: IUsage | undefined;

  /**
   * Add one chunk; returns the text it added, so the caller can stream it
   * to the user as it arrives.
   */
  add(chunk: IChatChunk): string {
    if (chunk.usage) {
      this._usage = {
        promptTokens: chunk.usage.prompt_tokens ?? 0,
        completionTokens: chunk.usage.completion_tokens ?? 0
      };
    }
    let added = '';
    // Some servers send usage-only or filter chunks with no choices at all.
    for (const choice of chunk.choices ?? []) {
      const delta = choice.delta;
      if (delta?.content) {
        this._text += delta.content;
        added += delta.content;
      }
      for (const call of delta?.tool_calls ?? []) {
        this._addToolCall(call);
      }
      if (choice.finish_reason) {
        this._finish = KNOWN_REASONS.has(choice.finish_reason)
          ? (choice.finish_reason as FinishReason)
          : 'unknown';
      }
    }
    return added;
  }

  /** The turn so far (complete once the stream has ended). */
  result(): IAssistantTurn {
    const toolCalls = [...this._calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, call]) => call)
      .filter(call => call.name !== '');
    const finishReason =
      this._finish ?? (toolCalls.length ? 'tool_calls' : 'stop');
    return { text: this._text, toolCalls, finishReason, usage: this._usage };
  }

  private _addToolCall(delta: IToolCallDelta): void {
    const index = delta.index ?? this._calls.size;
    let call = this._calls.get(index);
    if (!call) {
      call = { id: '', name: '', arguments: '' };
      this._calls.set(index, call);
    }
    if (delta.id) {
      call.id = delta.id;
    }
    if (delta.function?.name) {
      call.name = delta.function.name;
    }
    if (delta.function?.arguments) {
      call.arguments += delta.function.arguments;
    }
    if (!call.id) {
      // vLLM and others may omit ids; the tool message must still reference one.
      call.id = `call_${index}_${Date.now().toString(36)}`;
    }
  }
}
