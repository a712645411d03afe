/**
 * Hands a streamed response body to the SDK in small pieces.
 *
 * The `openai` SDK's SSE reader copies its whole pending buffer for every
 * event it takes out of a network chunk, so a burst of thousands of events
 * (a proxy flushing a fast model) costs time quadratic in the burst: 8,000
 * events took 1.6 s of main thread in Chromium. Splitting each network
 * chunk into pieces of at most 4 KB bounds that copy, making parsing linear.
 */
import type { FetchLike } from './fetch-like';

/** Largest piece, in bytes, handed to the SDK at once. */
export const MAX_PIECE_BYTES = 4096;

/** A fetch whose streamed (SSE) response bodies arrive in bounded pieces. */
export function withBoundedChunks(fetchImpl: FetchLike): FetchLike {
  return async (input, init) => {
    const response = await fetchImpl(input, init);
    const type = response.headers.get('content-type') ?? '';
    if (!response.body || !type.includes('text/event-stream')) {
      return response;
    }
    const body = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          for (let i = 0; i < chunk.length; i += MAX_PIECE_BYTES) {
            controller.enqueue(chunk.subarray(i, i + MAX_PIECE_BYTES));
          }
        }
      })
    );
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers
    });
  };
}
