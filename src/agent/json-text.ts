/**
 * JSON as text, before (or instead of) parsing it: the one walk over its
 * characters that knows which are inside a string literal, for the two
 * readers of raw model output: where a streamed call's JSON value ends
 * (model/local/tool-call-parser.ts) and the repair of arguments a model
 * wrote with raw newlines (tools/lenient-json.ts).
 */

/** One character of JSON text, and where it stands. */
export interface IJsonChar {
  ch: string;
  /** Its index in the text. */
  at: number;
  /** It is inside a string literal (its closing quote too, not its opening one). */
  inString: boolean;
  /** It follows a backslash inside a string literal. */
  escaped: boolean;
}

/** The characters of `text`, each with its place in or out of a string literal. */
export function* jsonCharacters(text: string): Generator<IJsonChar> {
  let inString = false;
  let escaped = false;
  for (let at = 0; at < text.length; at++) {
    const ch = text[at];
    yield { ch, at, inString, escaped };
    if (inString) {
      if (escaped) {
        escaped = false;
      } else if (ch === '\\') {
        escaped = true;
      } else if (ch === '"') {
        inString = false;
      }
    } else if (ch === '"') {
      inString = true;
    }
  }
}

/**
 * The length of the JSON value (object or array) at the start of `text`,
 * or null while its brackets are still open.
 */
export function scanJsonValue(text: string): number | null {
  let depth = 0;
  for (const { ch, at, inString } of jsonCharacters(text)) {
    if (inString) {
      continue;
    }
    if (ch === '{' || ch === '[') {
      depth++;
    } else if (ch === '}' || ch === ']') {
      depth--;
      if (depth === 0) {
        return at + 1;
      }
    }
  }
  return null;
}
