/**
 * JSON.parse that forgives what real models get wrong in tool arguments:
 * raw newlines and tabs inside strings (small models print code verbatim),
 * and a trailing comma before a closing brace.
 */

/** Escape raw control characters inside string literals, drop trailing commas. */
export function repairJson(text: string): string {
  let out = '';
  let inString = false;
  let escaped = false;
  for (const ch of text) {
    if (inString) {
      if (escaped) {
        escaped = false;
      } else if (ch === '\\') {
        escaped = true;
      } else if (ch === '"') {
        inString = false;
      } else if (ch < ' ') {
        out +=
          ch === '\n' ? '\\n' : ch === '\r' ? '\\r' : ch === '\t' ? '\\t' : '';
        continue;
      }
    } else if (ch === '"') {
      inString = true;
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
