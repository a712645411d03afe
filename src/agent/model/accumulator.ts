/**
 * Accumulates streamed chunks into one assistant turn: text, thinking, tool
 * calls and the finish reason.
 *
 * OpenAI-compatible servers disagree on the details of the stream, so every
 * rule below names the quirk it exists for. The quirks have recorded streams
 * in __tests__/fixtures/chunks, pinned by stream-quirks.test.ts; the few
 * with no server stream to record are unit-tested in accumulator.test.ts.
 */
import type { FinishReason, IToolCall, IUsage } from '../types';
import { ModelStreamError } from './errors';
import { FollowedChoice } from './followed-choice';
import type { IChatChunk, IToolCallDelta, ToolArgumentsDelta } from './types';

/** The finished turn. */
export interface IAssistantTurn {
  text: string;
  toolCalls: IToolCall[];
  finishReason: FinishReason;
  usage?: IUsage;
  /** What a thinking model streamed as reasoning; never part of `text`. */
  reasoning?: string;
}

const KNOWN_REASONS: ReadonlySet<string> = new Set([
  'stop',
  'tool_calls',
  'length',
  'content_filter'
]);

/** A tool call being assembled. */
interface IPendingCall {
  /** Sort key: the server's index, or the arrival position without one. */
  key: number;
  /** The server's id; '' until one arrives (see `result`). */
  id: string;
  name: string;
  arguments: string;
}

/** A fragment with the "absent" spellings (null, '', missing) made one. */
interface IFragment {
  index: number | undefined;
  id: string;
  name: string;
  arguments: string;
}

/** Distinguishes the synthesized ids of different turns. */
let turnCounter = 0;

/** Builds an `IAssistantTurn` from streamed chunks. */
export class TurnAccumulator {
  private _text = '';
  private _reasoning = '';
  private _calls: IPendingCall[] = [];
  private _latestByIndex = new Map<number, IPendingCall>();
  private _legacy: IPendingCall | null = null;
  private _finish: FinishReason | null = null;
  private _usage: IUsage | undefined;
  /** One choice's text and calls, never several joined (./followed-choice.ts). */
  private readonly _choice = new FollowedChoice();
  private readonly _idSuffix = `${Date.now().toString(36)}${(turnCounter++).toString(36)}`;

  /**
   * Add one chunk; returns the answer text it added, so the caller can
   * stream it to the user as it arrives. Throws a `ModelStreamError` for an
   * error object in the stream; the text so far stays in `result()`.
   */
  add(chunk: IChatChunk): string {
    // `{"error": …}` inside a 200 stream (OpenAI, vLLM; a string from TGI).
    // The SDK throws these itself; other clients pass them on, so stop here
    // rather than let the turn end as if it were complete.
    if (chunk.error) {
      throw new ModelStreamError(chunk.error);
    }
    if (chunk.usage) {
      this._usage = {
        promptTokens: chunk.usage.prompt_tokens ?? 0,
        completionTokens: chunk.usage.completion_tokens ?? 0
      };
    }
    let added = '';
    // `choices` is empty in Azure's prompt-filter chunk and in usage chunks.
    for (const choice of this._choice.pick(chunk.choices)) {
      const delta = choice.delta;
      if (typeof delta?.content === 'string') {
        this._text += delta.content;
        added += delta.content;
      }
      // Thinking models stream their reasoning in a field of its own; keep it
      // out of the answer. Take one field per delta: servers moving from
      // `reasoning_content` to `reasoning` may fill both with the same text.
      const thought = delta?.reasoning_content || delta?.reasoning;
      if (typeof thought === 'string') {
        this._reasoning += thought;
      }
      for (const call of delta?.tool_calls ?? []) {
        this._addToolCall(fragment(call));
      }
      if (delta?.function_call) {
        // Legacy `function_call`: one call, streamed like a tool call.
        const { name, arguments: args } = delta.function_call;
        this._legacy ??= { key: 0, id: '', name: '', arguments: '' };
        merge(this._legacy, {
          index: 0,
          id: '',
          name: name ?? '',
          arguments: text(args)
        });
      }
      if (choice.finish_reason) {
        this._finish =
          choice.finish_reason === 'function_call'
            ? 'tool_calls'
            : KNOWN_REASONS.has(choice.finish_reason)
              ? (choice.finish_reason as FinishReason)
              : 'unknown';
      }
    }
    return added;
  }

  /** The turn so far (complete once the stream has ended). */
  result(): IAssistantTurn {
    let pending = [...this._calls].sort((a, b) => a.key - b.key);
    // `function_call` only counts when the server sent no `tool_calls`.
    if (!pending.length && this._legacy) {
      pending = [this._legacy];
    }
    const toolCalls = pending
      // A call without a name cannot be run (a stray or empty fragment).
      .filter(call => call.name !== '')
      .map((call, i) => ({
        // vLLM omits ids and LM Studio sends '': the tool message must still
        // reference the call, so synthesize one, the same on every result().
        id: call.id || `call_${i}_${this._idSuffix}`,
        name: call.name,
        arguments: call.arguments
      }));
    // The loop decides on the calls themselves, never on finish_reason alone:
    // Ollama says `stop` after tool calls, some servers send no reason at all,
    // and some say `tool_calls` with an empty `tool_calls: []`.
    let finishReason = this._finish ?? 'stop';
    if (toolCalls.length && finishReason === 'stop') {
      finishReason = 'tool_calls';
    } else if (!toolCalls.length && finishReason === 'tool_calls') {
      finishReason = 'stop';
    }
    return {
      text: this._text,
      toolCalls,
      finishReason,
      usage: this._usage,
      ...(this._reasoning ? { reasoning: this._reasoning } : {})
    };
  }

  private _addToolCall(part: IFragment): void {
    const indexed = part.index !== undefined;
    const target = indexed
      ? this._latestByIndex.get(part.index as number)
      : this._calls[this._calls.length - 1];
    let call = target;
    if (!call || startsNewCall(call, part, indexed)) {
      call = {
        key: part.index ?? this._calls.length,
        id: '',
        name: '',
        arguments: ''
      };
      this._calls.push(call);
    }
    if (indexed) {
      this._latestByIndex.set(part.index as number, call);
    }
    merge(call, part);
  }
}

/** Normalize a delta: null, '' and missing all mean "not sent". */
function fragment(delta: IToolCallDelta): IFragment {
  return {
    index: typeof delta.index === 'number' ? delta.index : undefined,
    id: delta.id || '',
    name: delta.function?.name || '',
    arguments: text(delta.function?.arguments)
  };
}

/**
 * Arguments as JSON text: a string as sent; an object (Ollama sends the
 * object itself) as its JSON, which begins and ends with a brace. Anything
 * else is dropped, not stringified: the proxy's filter joins only strings to
 * find a key sent in pieces, so `4` then `"f9a1…"` would rebuild one it
 * never saw whole.
 */
function text(args: ToolArgumentsDelta | undefined): string {
  if (typeof args === 'string') {
    return args;
  }
  return isObject(args) ? JSON.stringify(args) : '';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function merge(call: IPendingCall, part: IFragment): void {
  // The first id and name win: llama.cpp repeats both on every delta, and
  // some servers send a fresh random id with each fragment.
  call.id ||= part.id;
  call.name ||= part.name;
  call.arguments += part.arguments;
}

/**
 * Whether a fragment that carries an id or name begins another call rather
 * than continuing `call` (the last call at its index, or the last call).
 */
function startsNewCall(
  call: IPendingCall,
  part: IFragment,
  indexed: boolean
): boolean {
  if (!part.id && !part.name) {
    return false; // a bare argument fragment always continues
  }
  if (part.name && call.name && part.name !== call.name) {
    return true; // no server renames a call part-way
  }
  if (part.id && part.id === call.id) {
    // Nothing below can say yes to the call's own id; answered before the
    // parse, which would cost O(n) per fragment, O(n^2) a call, with
    // llama.cpp repeating the id and name on every fragment.
    return false;
  }
  // Ids alone only split finished calls: some servers send a new random id
  // with every fragment of one call.
  if (!isComplete(call)) {
    return false;
  }
  if (part.id && call.id) {
    return true; // Ollama: every call at index 0, told apart by its id
  }
  // Without indexes a name after a finished call starts the next call.
  return !indexed && part.name !== '';
}

/** A call with a name and arguments that already parse as JSON. */
function isComplete(call: IPendingCall): boolean {
  if (!call.name || !call.arguments) {
    return false;
  }
  try {
    JSON.parse(call.arguments);
    return true;
  } catch {
    return false;
  }
}
