/**
 * A fetch that names what it failed to fetch. Offline, the browser's fetch
 * rejects with a bare "Failed to fetch" (Chrome) or "NetworkError…"
 * (Firefox), and transformers.js passes it on as it is: the user cannot
 * tell which file, from which host. The worker gives transformers.js this
 * wrapper as `env.fetch`, so the error it reports carries the URL.
 */
import {
  fileOfUrl,
  hostOf,
  messageOf
} from '../agent/model/local/reachability';

/** A fetch that got no answer, with the URL it asked for. */
export class FetchFailure extends Error {
  constructor(
    readonly url: string,
    cause: unknown,
    model?: string
  ) {
    super(
      `Could not download ${fileOfUrl(url, model)} from ${hostOf(url)}: ${messageOf(cause)}`
    );
    this.name = 'FetchFailure';
  }
}

type Fetch = (input: unknown, init?: unknown) => Promise<unknown>;

/** `fetchFn`, with its rejections turned into `FetchFailure`s. */
export function namingFetch<F extends Fetch>(fetchFn: F, model?: string): F {
  const named = (input: unknown, init?: unknown) =>
    fetchFn(input, init).catch((error: unknown) => {
      if ((error as Error | null)?.name === 'AbortError') {
        throw error;
      }
      throw new FetchFailure(urlOf(input), error, model);
    });
  return named as F;
}

/** The URL of the first fetch failure in `error` (or in the errors it holds). */
export function failedUrl(error: unknown, depth = 0): string | undefined {
  if (depth > 4 || !error || typeof error !== 'object') {
    return undefined;
  }
  if (error instanceof FetchFailure) {
    return error.url;
  }
  const shape = error as {
    cause?: unknown;
    failures?: ReadonlyArray<{ error: unknown }>;
  };
  for (const inner of [
    shape.cause,
    ...(shape.failures ?? []).map(f => f.error)
  ]) {
    const url = failedUrl(inner, depth + 1);
    if (url) {
      return url;
    }
  }
  return undefined;
}

function urlOf(input: unknown): string {
  if (typeof input === 'string') {
    return input;
  }
  const shape = input as { url?: string; href?: string } | null;
  return shape?.url ?? shape?.href ?? String(input);
}
