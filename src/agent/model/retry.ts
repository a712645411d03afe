/**
 * Retries of a model request before its answer starts, done by us rather
 * than by the `openai` SDK, whose retries sleep without watching the abort
 * signal (Stop did nothing while it waited) and wait whatever Retry-After
 * says (a 429 with `Retry-After: 120` held the run for four minutes).
 *
 * Policy: connection failures and 408, 409, 429 and 5xx answers are tried
 * again up to `maxRetries` times, unless the answer says `X-Should-Retry:
 * false` (the server proxy says so once it has done its own retries).
 * Retry-After (or retry-after-ms) is honoured up to `maxWaitMs`; a longer
 * wait is not waited for: the error goes to the user at once, and its
 * message says how long the endpoint asked to wait. Without one the waits
 * are 0.5 s, then 1 s (with jitter). Every wait ends at once on abort.
 */
import { retryAfterMs } from './retry-after';

/** How to retry. */
export interface IRetryOptions {
  signal: AbortSignal;
  /** Further attempts after the first (default 2). */
  maxRetries?: number;
  /** Longest Retry-After honoured, in ms (default 20 s). */
  maxWaitMs?: number;
  /** For tests: the delay function. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/** Default retries, as the SDK and the server proxy. */
export const DEFAULT_MAX_RETRIES = 2;
/** Default longest Retry-After honoured (the server proxy's default too). */
export const DEFAULT_MAX_RETRY_WAIT_MS = 20_000;

const RETRYABLE = new Set([408, 409, 429]);

interface IRetryShape {
  status?: number;
  name?: string;
  message?: string;
  headers?: unknown;
  constructor?: { name?: string };
}

/** Run `attempt` until it succeeds, the policy gives up, or the signal aborts. */
export async function withRetries<T>(
  attempt: () => Promise<T>,
  options: IRetryOptions
): Promise<T> {
  const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  const maxWait = options.maxWaitMs ?? DEFAULT_MAX_RETRY_WAIT_MS;
  const sleep = options.sleep ?? abortableSleep;
  for (let retry = 0; ; retry++) {
    try {
      return await attempt();
    } catch (error) {
      const wait = retryDelay(error, retry, maxRetries, maxWait);
      if (wait === null || options.signal.aborted) {
        throw error;
      }
      await sleep(wait, options.signal);
    }
  }
}

/** Milliseconds to wait before retrying after `error`, or null to give up. */
export function retryDelay(
  error: unknown,
  retry: number,
  maxRetries: number,
  maxWaitMs: number
): number | null {
  if (retry >= maxRetries) {
    return null;
  }
  const shape = (error ?? {}) as IRetryShape;
  const name = shape.constructor?.name ?? shape.name ?? '';
  if (name === 'APIUserAbortError' || name === 'AbortError') {
    return null;
  }
  if (shape.status === undefined) {
    // No HTTP answer: only connection failures are worth another try.
    return name.includes('Connection') ? backoff(retry) : null;
  }
  if (header(shape.headers, 'x-should-retry') === 'false') {
    return null;
  }
  if (!RETRYABLE.has(shape.status) && shape.status < 500) {
    return null;
  }
  const asked = retryAfterMs(shape.headers);
  if (asked === null) {
    return backoff(retry);
  }
  return asked <= maxWaitMs ? asked : null;
}

function backoff(retry: number): number {
  return 500 * 2 ** retry * (1 + Math.random() * 0.25);
}

function header(headers: unknown, name: string): string | null {
  const getter = headers as { get?: (name: string) => string | null } | null;
  return typeof getter?.get === 'function' ? getter.get(name) : null;
}

/** Sleep `ms`, rejecting at once with an AbortError when `signal` aborts. */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const aborted = () => {
      clearTimeout(timer);
      const error = new Error('Request was aborted.');
      error.name = 'AbortError';
      reject(error);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', aborted);
      resolve();
    }, ms);
    if (signal.aborted) {
      aborted();
    } else {
      signal.addEventListener('abort', aborted, { once: true });
    }
  });
}
