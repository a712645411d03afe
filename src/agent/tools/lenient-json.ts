/**
 * JSON.parse that forgives what real models get wrong in tool arguments:
 * raw newlines and tabs inside strings (small models print code verbatim),
 * and a trailing comma before a closing brace.
 */
import { jsonCharacters } from '../json-text';

/** Escape raw control characters inside string literals, drop trailing commas. */
export function repairJson(text: string): string {
  let out = '';
  for (const { ch, inString, escaped } of jsonCharacters(text)) {
    if (inString && !escaped && ch < ' ') {
      out +=
        ch === '\n' ? '\\n' : ch === '\r' ? '\\r' : ch === '\t' ? '\\t' : '';
      continue;
    }
    out += ch;
  }
  return out.replace(/,\s*([}\]])/g, '$1');
}

/** Parse `text` as JSON, repairing it if strict parsing fails. */
export function parseLenientJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    try {
      return JSON.parse(repairJson(text));
    } catch {
      throw error;
    }
  }
}
