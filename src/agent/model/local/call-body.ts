/**
 * Parses the body of one tool-call block into calls: JSON objects
 * (`{"name": …, "arguments": {…}}`, Llama's `"parameters"`, an array of
 * them) or pythonic calls (`[name(a=1)]`).
 */
import { parseLenientJson } from '../../tools/lenient-json';
import { parsePythonicCalls, type IParsedCall } from './pythonic-calls';

export type { IParsedCall } from './pythonic-calls';

/** The calls in `body`, or null when it is not a well-formed call. */
export function parseCallBody(
  body: string,
  syntax: 'json' | 'pythonic'
): IParsedCall[] | null {
  const text = body.trim();
  if (!text) {
    return null;
  }
  const fromJson = jsonCalls(text);
  if (fromJson || syntax === 'json') {
    return fromJson;
  }
  return parsePythonicCalls(text);
}

function jsonCalls(text: string): IParsedCall[] | null {
  let value: unknown;
  try {
    value = parseLenientJson(text);
  } catch {
    return null;
  }
  const items = Array.isArray(value) ? value : [value];
  const calls = items.map(toCall);
  return calls.length && calls.every(c => c !== null)
    ? (calls as IParsedCall[])
    : null;
}

function toCall(item: unknown): IParsedCall | null {
  if (!item || typeof item !== 'object') {
    return null;
  }
  const record = item as Record<string, unknown>;
  // OpenAI-style nesting: {"function": {"name": …, "arguments": …}}.
  const inner =
    record.function && typeof record.function === 'object'
      ? (record.function as Record<string, unknown>)
      : record;
  const name = inner.name;
  if (typeof name !== 'string' || !name) {
    return null;
  }
  let args: unknown = inner.arguments ?? inner.parameters ?? {};
  if (typeof args === 'string') {
    // Some models write the arguments as a JSON string.
    try {
      args = parseLenientJson(args);
    } catch {
      return null;
    }
  }
  if (!args || typeof args !== 'object' || Array.isArray(args)) {
    return null;
  }
  return { name, arguments: args as Record<string, unknown> };
}
