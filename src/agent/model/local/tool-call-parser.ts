/**
 * Turns the streamed text of a local model into the OpenAI-shaped chunks a
 * remote server would send: `content` deltas, `reasoning_content` for
 * `<think>…</think>`, and whole `tool_calls` deltas with synthesized ids
 * (`call_local_N`) and sequential indexes.
 *
 * Text arrives a token at a time, so a marker may be split across pushes:
 * any tail that could still become a marker is held back until the next
 * push (or `finish`) decides it. The result therefore does not depend on
 * where the text was split.
 */
import type { IChatChunk, IChatDelta } from '../types';
import {
  DROP_TOKENS,
  FAMILY_SYNTAX,
  THINK_END,
  THINK_START,
  type ICallBlock,
  type ToolCallFamily
} from './families';
import { parseCallBody, type IParsedCall } from './call-body';
import { scanJsonValue } from '../../json-text';

/** Options of one turn's parser. */
export interface IToolCallParserOptions {
  family: ToolCallFamily;
  /** Number of the first synthesized id (`call_local_<firstId>`); default 0. */
  firstId?: number;
  /** The prompt ended inside `<think>` (the template opened it). */
  startInThinking?: boolean;
  /** Further tokens to drop, e.g. the tokenizer's own end-of-turn token. */
  dropTokens?: readonly string[];
}

type Mode =
  | { kind: 'text' }
  | { kind: 'think' }
  | { kind: 'block'; block: ICallBlock }
  | { kind: 'json'; prefix: string };

/** A streaming parser for one model turn. */
export class ToolCallParser {
  private _buffer = '';
  private _mode: Mode = { kind: 'text' };
  /** Nothing but whitespace has been shown as content yet. */
  private _atStart = true;
  /** Drop whitespace right after `</think>` or a call. */
  private _trimNext = false;
  private _calls = 0;
  private _nextId: number;
  private _out: IChatDelta[] = [];
  private readonly _drop: string[];
  private readonly _syntax;

  constructor(options: IToolCallParserOptions) {
    this._syntax = FAMILY_SYNTAX[options.family];
    this._nextId = options.firstId ?? 0;
    this._drop = [...DROP_TOKENS, ...(options.dropTokens ?? [])];
    if (options.startInThinking) {
      this._mode = { kind: 'think' };
    }
  }

  /** Tool calls emitted so far. */
  get callCount(): number {
    return this._calls;
  }

  /** The id the next turn's parser should start from. */
  get nextId(): number {
    return this._nextId;
  }

  /** Add decoded text; returns the chunks it completes. */
  push(text: string): IChatChunk[] {
    this._buffer += text;
    this._drain(false);
    return this._flushOut();
  }

  /**
   * End of the stream: decide what is held back, and add the final chunk
   * with its finish reason (`tool_calls` when a call was parsed, else `reason`).
   */
  finish(reason: 'stop' | 'length' = 'stop'): IChatChunk[] {
    this._drain(true);
    const chunks = this._flushOut();
    chunks.push({
      choices: [
        {
          index: 0,
          delta: {},
          finish_reason: this._calls ? 'tool_calls' : reason
        }
      ]
    });
    return chunks;
  }

  private _drain(final: boolean): void {
    let progressed = true;
    while (progressed && this._buffer) {
      switch (this._mode.kind) {
        case 'text':
          progressed = this._text(final);
          break;
        case 'think':
          progressed = this._think(final);
          break;
        case 'block':
          progressed = this._block(this._mode.block, final);
          break;
        case 'json':
          progressed = this._json(this._mode.prefix, final);
          break;
      }
    }
  }

  private _text(final: boolean): boolean {
    if (this._trimNext) {
      this._buffer = this._buffer.replace(/^\s+/, '');
      if (!this._buffer) {
        return false;
      }
      this._trimNext = false;
    }
    if (this._atStart && this._syntax.bareJsonAtStart) {
      const lead = this._buffer.replace(/^\s+/, '');
      if (!lead && !final) {
        return false; // only whitespace yet: it may precede a call
      }
      if (lead.startsWith('{')) {
        this._buffer = lead;
        this._mode = { kind: 'json', prefix: '' };
        return true;
      }
    }
    const markers = [
      THINK_START,
      ...this._syntax.blocks.map(b => b.start),
      ...this._syntax.jsonPrefixes,
      ...this._drop
    ];
    const hit = earliest(this._buffer, markers);
    if (!hit) {
      const keep = final ? 0 : heldBack(this._buffer, markers);
      this._content(this._buffer.slice(0, this._buffer.length - keep));
      this._buffer = this._buffer.slice(this._buffer.length - keep);
      return false;
    }
    this._content(this._buffer.slice(0, hit.at));
    this._buffer = this._buffer.slice(hit.at + hit.marker.length);
    const block = this._syntax.blocks.find(b => b.start === hit.marker);
    if (hit.marker === THINK_START) {
      this._mode = { kind: 'think' };
    } else if (block) {
      this._mode = { kind: 'block', block };
    } else if (this._syntax.jsonPrefixes.includes(hit.marker)) {
      this._mode = { kind: 'json', prefix: hit.marker };
    }
    return true;
  }

  private _think(final: boolean): boolean {
    const markers = [THINK_END, ...this._drop];
    const hit = earliest(this._buffer, markers);
    const end = hit ? hit.at : this._buffer.length;
    const keep = hit || final ? 0 : heldBack(this._buffer, markers);
    this._emit({ reasoning_content: this._buffer.slice(0, end - keep) });
    if (!hit) {
      this._buffer = this._buffer.slice(end - keep);
      return false;
    }
    this._buffer = this._buffer.slice(hit.at + hit.marker.length);
    if (hit.marker === THINK_END) {
      this._mode = { kind: 'text' };
      this._trimNext = true;
    }
    return true;
  }

  private _block(block: ICallBlock, final: boolean): boolean {
    const at = this._buffer.indexOf(block.end);
    if (at < 0 && !final) {
      return false;
    }
    const body = stripTokens(
      at < 0 ? this._buffer : this._buffer.slice(0, at),
      this._drop
    );
    this._buffer = at < 0 ? '' : this._buffer.slice(at + block.end.length);
    this._mode = { kind: 'text' };
    const calls = parseCallBody(body, block.body);
    if (calls) {
      this._toolCalls(calls);
    } else {
      // Not a call after all: show it rather than lose it.
      this._content(`${block.start}${body}${at < 0 ? '' : block.end}`);
    }
    return true;
  }

  private _json(prefix: string, final: boolean): boolean {
    const lead = this._buffer.replace(/^[\s;]+/, '');
    if (!lead) {
      if (final) {
        this._buffer = '';
        this._mode = { kind: 'text' };
      }
      return false;
    }
    if (!lead.startsWith('{')) {
      // What follows the calls is text (or the raw prefix was not a call).
      this._buffer = lead;
      this._mode = { kind: 'text' };
      if (!this._calls && prefix) {
        this._content(prefix);
      }
      return true;
    }
    const length = scanJsonValue(lead);
    if (length === null && !final) {
      this._buffer = lead;
      return false;
    }
    const text = length === null ? lead : lead.slice(0, length);
    this._buffer = lead.slice(text.length);
    const calls = length === null ? null : parseCallBody(text, 'json');
    if (calls) {
      this._toolCalls(calls);
      return true;
    }
    this._mode = { kind: 'text' };
    this._content(`${this._calls ? '' : prefix}${text}`);
    return true;
  }

  private _content(text: string): void {
    if (!text) {
      return;
    }
    if (this._atStart && /\S/.test(text)) {
      this._atStart = false;
    }
    this._emit({ content: text });
  }

  private _toolCalls(calls: IParsedCall[]): void {
    this._atStart = false;
    this._trimNext = true;
    this._emit({
      tool_calls: calls.map(call => ({
        index: this._calls++,
        id: `call_local_${this._nextId++}`,
        type: 'function',
        function: {
          name: call.name,
          arguments: JSON.stringify(call.arguments)
        }
      }))
    });
  }

  /** Queue a delta, joining text with the previous delta of the same field. */
  private _emit(delta: IChatDelta): void {
    const last = this._out[this._out.length - 1];
    for (const key of ['content', 'reasoning_content'] as const) {
      const text = delta[key];
      if (text === undefined || text === null) {
        continue;
      }
      if (!text) {
        return;
      }
      if (
        last &&
        typeof last[key] === 'string' &&
        Object.keys(last).length === 1
      ) {
        last[key] += text;
        return;
      }
    }
    this._out.push(delta);
  }

  private _flushOut(): IChatChunk[] {
    const chunks = this._out.map(delta => ({
      choices: [{ index: 0, delta, finish_reason: null }]
    }));
    this._out = [];
    return chunks;
  }
}

/** The first marker found in `text`, earliest position first, longest on ties. */
function earliest(
  text: string,
  markers: readonly string[]
): { at: number; marker: string } | null {
  let best: { at: number; marker: string } | null = null;
  for (const marker of markers) {
    const at = text.indexOf(marker);
    if (
      at >= 0 &&
      (!best ||
        at < best.at ||
        (at === best.at && marker.length > best.marker.length))
    ) {
      best = { at, marker };
    }
  }
  return best;
}

/** Length of the longest tail of `text` that is the start of some marker. */
function heldBack(text: string, markers: readonly string[]): number {
  let keep = 0;
  for (const marker of markers) {
    for (let n = Math.min(marker.length - 1, text.length); n > keep; n--) {
      if (text.endsWith(marker.slice(0, n))) {
        keep = n;
        break;
      }
    }
  }
  return keep;
}

function stripTokens(text: string, tokens: readonly string[]): string {
  return tokens.reduce((out, token) => out.split(token).join(''), text);
}
