/**
 * How long an endpoint asked us to wait: `retry-after-ms` (OpenAI) or
 * `Retry-After` in delta-seconds or as an HTTP date (RFC 9110).
 */

/** Milliseconds from the headers of an error answer; null when absent or unreadable. */
export function retryAfterMs(
  headers: unknown,
  now = Date.now()
): number | null {
  const get = (name: string): string | null => {
    const source = headers as {
      get?: (name: string) => string | null;
    } | null;
    if (typeof source?.get === 'function') {
      return source.get(name);
    }
    if (source && typeof source === 'object') {
      for (const [key, value] of Object.entries(source)) {
        if (key.toLowerCase() === name && typeof value === 'string') {
          return value;
        }
      }
    }
    return null;
  };
  const millis = Number.parseFloat(get('retry-after-ms') ?? '');
  if (Number.isFinite(millis)) {
    return Math.max(0, millis);
  }
  const value = (get('retry-after') ?? '').trim();
  if (!value) {
    return null;
  }
  const seconds = Number(value);
  if (Number.isFinite(seconds)) {
    return Math.max(0, seconds * 1000);
  }
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}
