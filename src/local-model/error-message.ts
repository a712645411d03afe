/** An error's message, as the worker posts it (`error` and `fallback` events). */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
