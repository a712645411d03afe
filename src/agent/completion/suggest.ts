/**
 * One suggestion: build the request for the cursor, stream the source's
 * text, stop the source as soon as the suggestion is whole (a line has its
 * newline, a block its last line), and clean it.
 */
import {
  buildCompletion,
  CELL_MARKER,
  OUTPUT_MARKER,
  type ICompletionLimits,
  type ICursorContext
} from './fim-prompt';
import { cleanSuggestion, MAX_SUGGESTION_LINES } from './suggestion';
import type { ICompletionSource } from './types';

/** A suggestion and what it cost. */
export interface ISuggestion {
  /** The text to show after the cursor ('' when there is none). */
  text: string;
  /** The raw text the model sent. */
  raw: string;
  /** Milliseconds to the first text from the source, and to the end. */
  firstTextMs: number | null;
  totalMs: number;
}

/** Ask `source` for a suggestion at `cursor`; rejects when `signal` aborts. */
export async function suggest(
  source: ICompletionSource,
  cursor: ICursorContext,
  limits: ICompletionLimits,
  signal: AbortSignal,
  now: () => number = () => performance.now()
): Promise<ISuggestion> {
  const started = now();
  const built = buildCompletion(cursor, source.model, limits);
  // Stops the source's work once enough text came, or with `signal`.
  const enough = new AbortController();
  const stop = () => enough.abort();
  signal.addEventListener('abort', stop, { once: true });
  let raw = '';
  let firstTextMs: number | null = null;
  try {
    for await (const piece of source.complete(built.request, enough.signal)) {
      // A source's pieces are strings; anything else (an upstream's array)
      // is dropped, not joined: the proxy's key filter joins only strings.
      if (typeof piece !== 'string') {
        continue;
      }
      firstTextMs ??= now() - started;
      raw += piece;
      if (isWhole(raw, built.mode)) {
        enough.abort();
        break;
      }
    }
  } catch (error) {
    if (!enough.signal.aborted || signal.aborted) {
      throw error;
    }
  } finally {
    signal.removeEventListener('abort', stop);
  }
  signal.throwIfAborted();
  return {
    text: cleanSuggestion(raw, built.mode, cursor.after),
    raw,
    firstTextMs,
    totalMs: now() - started
  };
}

/** Whether more text cannot change the suggestion. */
function isWhole(raw: string, mode: string): boolean {
  if (mode === 'line') {
    return raw.includes('\n');
  }
  return (
    raw.includes(`\n${CELL_MARKER}`) ||
    raw.includes(`\n${OUTPUT_MARKER}`) ||
    raw.split('\n').length > MAX_SUGGESTION_LINES + 1
  );
}
