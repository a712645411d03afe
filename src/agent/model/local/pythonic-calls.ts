/**
 * Parses Python-style tool calls, as LFM2 writes them:
 * `[get_weather(city="Paris", days=3), search(q='x', filters={"a": [1, 2]})]`.
 *
 * Only keyword arguments and Python literals (strings, numbers, True,
 * False, None, lists, tuples, dicts) are accepted; anything else makes the
 * whole text "not a call" (null), so the caller can show it as text.
 */

/** One parsed call. */
export interface IParsedCall {
  name: string;
  arguments: Record<string, unknown>;
}

/** Parse `text` as a list of calls (or a single call); null when it is not one. */
export function parsePythonicCalls(text: string): IParsedCall[] | null {
  const reader = new Private.Reader(text);
  try {
    reader.skipSpace();
    const bracketed = reader.peek() === '[';
    if (bracketed) {
      reader.expect('[');
    }
    const calls: IParsedCall[] = [];
    reader.skipSpace();
    while (!(bracketed && reader.peek() === ']') && !reader.done()) {
      calls.push(reader.call());
      reader.skipSpace();
      if (reader.peek() === ',') {
        reader.expect(',');
        reader.skipSpace();
      } else {
        break;
      }
    }
    if (bracketed) {
      reader.expect(']');
    }
    reader.skipSpace();
    return reader.done() && calls.length ? calls : null;
  } catch {
    return null;
  }
}

namespace Private {
  const IDENT = /[A-Za-z_][A-Za-z0-9_.-]*/y;
  const NUMBER = /-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/y;
  const ESCAPES: Record<string, string> = {
    n: '\n',
    t: '\t',
    r: '\r',
    '0': '\0',
    '\\': '\\',
    "'": "'",
    '"': '"'
  };

  /** A recursive-descent reader over the text. */
  export class Reader {
    private _pos = 0;

    constructor(private readonly _text: string) {}

    done(): boolean {
      return this._pos >= this._text.length;
    }

    peek(): string {
      return this._text[this._pos] ?? '';
    }

    skipSpace(): void {
      while (/\s/.test(this.peek())) {
        this._pos++;
      }
    }

    expect(ch: string): void {
      if (this.peek() !== ch) {
        throw new Error(`expected ${ch} at ${this._pos}`);
      }
      this._pos++;
    }

    call(): IParsedCall {
      const name = this._match(IDENT);
      this.skipSpace();
      this.expect('(');
      const args: Record<string, unknown> = {};
      this.skipSpace();
      while (this.peek() !== ')') {
        const key = this._match(IDENT);
        this.skipSpace();
        this.expect('=');
        this.skipSpace();
        args[key] = this.value();
        this.skipSpace();
        if (this.peek() !== ',') {
          break;
        }
        this.expect(',');
        this.skipSpace();
      }
      this.expect(')');
      return { name, arguments: args };
    }

    value(): unknown {
      const ch = this.peek();
      if (ch === '"' || ch === "'") {
        return this._string();
      }
      if (ch === '[' || ch === '(') {
        return this._sequence(ch === '[' ? ']' : ')');
      }
      if (ch === '{') {
        return this._dict();
      }
      NUMBER.lastIndex = this._pos;
      if (NUMBER.test(this._text)) {
        return Number(this._match(NUMBER));
      }
      const word = this._match(IDENT);
      const literals: Record<string, unknown> = {
        True: true,
        False: false,
        None: null,
        true: true,
        false: false,
        null: null
      };
      if (word in literals) {
        return literals[word];
      }
      throw new Error(`not a literal: ${word}`);
    }

    private _sequence(close: string): unknown[] {
      this._pos++;
      const items: unknown[] = [];
      this.skipSpace();
      while (this.peek() !== close) {
        items.push(this.value());
        this.skipSpace();
        if (this.peek() !== ',') {
          break;
        }
        this.expect(',');
        this.skipSpace();
      }
      this.expect(close);
      return items;
    }

    private _dict(): Record<string, unknown> {
      this.expect('{');
      const dict: Record<string, unknown> = {};
      this.skipSpace();
      while (this.peek() !== '}') {
        const key = this.value();
        this.skipSpace();
        this.expect(':');
        this.skipSpace();
        dict[String(key)] = this.value();
        this.skipSpace();
        if (this.peek() !== ',') {
          break;
        }
        this.expect(',');
        this.skipSpace();
      }
      this.expect('}');
      return dict;
    }

    private _string(): string {
      const quote = this.peek();
      const triple = this._text.startsWith(quote.repeat(3), this._pos);
      const close = triple ? quote.repeat(3) : quote;
      this._pos += close.length;
      let out = '';
      while (!this._text.startsWith(close, this._pos)) {
        if (this.done()) {
          throw new Error('unterminated string');
        }
        const ch = this._text[this._pos++];
        if (ch === '\\') {
          const next = this._text[this._pos++] ?? '';
          out += ESCAPES[next] ?? `\\${next}`;
        } else {
          out += ch;
        }
      }
      this._pos += close.length;
      return out;
    }

    private _match(pattern: RegExp): string {
      pattern.lastIndex = this._pos;
      const found = pattern.exec(this._text);
      if (!found) {
        throw new Error(`unexpected ${this.peek() || 'end'} at ${this._pos}`);
      }
      this._pos += found[0].length;
      return found[0];
    }
  }
}
