/**
 * Finds where a JSON object or array that starts a text ends, without
 * parsing it: used to tell a complete streamed call from a partial one.
 */

/**
 * The length of the JSON value (object or array) at the start of `text`,
 * or null while its brackets are still open.
 */
export function scanJsonValue(text: string): number | null {
  let depth = 0;
  let inString = false;
  let escaped = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
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
    } else if (ch === '{' || ch === '[') {
      depth++;
    } else if (ch === '}' || ch === ']') {
      depth--;
      if (depth === 0) {
        return i + 1;
      }
    }
  }
  return null;
}
