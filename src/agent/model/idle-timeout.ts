/**
 * Bounds a stalled response: a body that sends nothing for too long fails.
 *
 * The `openai` SDK's timeout covers only the wait for the response headers;
 * once a stream has started, a server that stops sending (a stuck GPU, a
 * dead upstream behind a gateway that keeps the connection open) would hold
 * the run forever. This fetch wrapper watches the body: every network
 * chunk, SSE keep-alive comments included, restarts the clock; after
 * `idleMs` of silence the body is cancelled (closing the connection, so a
 * proxy in between stops its upstream request too) and the read fails with
 * a ModelIdleTimeoutError, which the loop reports to the user.
 */
import { ModelIdleTimeoutError } from './stream-errors';
import type { FetchLike } from './fetch-like';

/** Default longest silence: long enough for a slow local model's prompt processing. */
export const DEFAULT_IDLE_TIMEOUT_MS = 300_000;

/** A fetch whose response bodies fail after `idleMs` without data. */
export function withIdleTimeout(
  fetchImpl: FetchLike,
  idleMs: number
): FetchLike {
  return async (input, init) => {
    const response = await fetchImpl(input, init);
    if (!response.body || !(idleMs > 0)) {
      return response;
    }
    const reader = response.body.getReader();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const idle = new Promise<'idle'>(resolve => {
          timer = setTimeout(() => resolve('idle'), idleMs);
        });
        try {
          const next = await Promise.race([reader.read(), idle]);
          if (next === 'idle') {
            controller.error(new ModelIdleTimeoutError(idleMs));
            void reader.cancel().catch(() => undefined);
            return;
          }
          if (next.done) {
            controller.close();
          } else {
            controller.enqueue(next.value);
          }
        } catch (error) {
          // An abort or a broken connection: pass it on unchanged.
          controller.error(error);
        } finally {
          clearTimeout(timer);
        }
      },
      cancel(reason) {
        clearTimeout(timer);
        return reader.cancel(reason);
      }
    });
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers
    });
  };
}
