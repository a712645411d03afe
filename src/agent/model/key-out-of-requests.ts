/**
 * The client's own key out of what it sends. A cell the agent ran may print
 * the key (code in a kernel runs as the user and can read it), and the
 * agent sends what cells print to the model in the next request. Behind
 * the Jupyter server's proxy the server removes the secrets it holds; a
 * client that holds its own key (the command line, --api-key or
 * $OPENAI_API_KEY) removes it here, from every request body, before it
 * leaves. The key itself still goes in the Authorization header, which
 * this does not touch.
 */
import type { FetchLike } from './fetch-like';

/** What a removed key becomes. */
export const REDACTED = '[redacted]';

/**
 * Keys shorter than this are left alone (as in ./redact.ts): placeholders
 * such as `ollama` would be cut out of prompts and outputs that name them.
 */
export const MIN_KEY_LENGTH = 8;

/** Hex digits of `value`, matching either case. */
function hexPattern(value: number, width: number): string {
  return value
    .toString(16)
    .padStart(width, '0')
    .replace(/[a-f]/g, digit => `[${digit}${digit.toUpperCase()}]`);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/**
 * A pattern for `key` in a JSON request body, each character in any of the
 * forms a cell could print it in: as it is (JSON-escaped where JSON
 * escapes it), percent-encoded, or a `\uXXXX` escape printed as text (which
 * JSON then writes with its backslash doubled). Forms may mix.
 */
export function keyPattern(key: string): RegExp {
  const characters = Array.from(key).map(character => {
    const code = character.codePointAt(0)!;
    const forms = [escapeRegExp(JSON.stringify(character).slice(1, -1))];
    if (code <= 0xffff) {
      forms.push(String.raw`\\\\u` + hexPattern(code, 4));
    }
    if (code < 0x80) {
      forms.push(`%${hexPattern(code, 2)}`);
    }
    return `(?:${forms.join('|')})`;
  });
  return new RegExp(characters.join(''), 'g');
}

/** `fetchImpl`, with `key` replaced by [redacted] in every string request body. */
export function withKeyOutOfRequests(
  fetchImpl: FetchLike,
  key: string | undefined
): FetchLike {
  if (!key || key.length < MIN_KEY_LENGTH) {
    return fetchImpl;
  }
  const pattern = keyPattern(key);
  return (input, init) => {
    if (typeof init?.body !== 'string') {
      return fetchImpl(input, init);
    }
    pattern.lastIndex = 0;
    if (!pattern.test(init.body)) {
      return fetchImpl(input, init);
    }
    pattern.lastIndex = 0;
    return fetchImpl(input, {
      ...init,
      body: init.body.replace(pattern, REDACTED)
    });
  };
}
