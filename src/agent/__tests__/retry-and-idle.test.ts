/**
 * The model client's own retry policy and idle timeout, as units (the fault
 * suite in src/headless/__tests__/faults drives them end to end).
 */
import { describeModelError, ModelIdleTimeoutError } from '../model/errors';
import { withIdleTimeout } from '../model/idle-timeout';
import { abortableSleep, retryDelay, withRetries } from '../model/retry';
import { retryAfterMs } from '../model/retry-after';

const answer = (status: number, headers: Record<string, string> = {}) =>
  Object.assign(new Error(`${status}`), {
    status,
    headers: new Headers(headers)
  });

describe('retry policy', () => {
  it('retries rate limits and server errors, honouring short Retry-After only', () => {
    expect(retryDelay(answer(429, { 'retry-after': '1' }), 0, 2, 20000)).toBe(
      1000
    );
    expect(
      retryDelay(answer(429, { 'retry-after-ms': '250' }), 0, 2, 20000)
    ).toBe(250);
    expect(
      retryDelay(answer(429, { 'retry-after': '120' }), 0, 2, 20000)
    ).toBeNull();
    expect(retryDelay(answer(503), 1, 2, 20000)).toBeGreaterThanOrEqual(1000);
    expect(retryDelay(answer(503), 2, 2, 20000)).toBeNull();
    expect(retryDelay(answer(400), 0, 2, 20000)).toBeNull();
    expect(retryDelay(answer(401), 0, 2, 20000)).toBeNull();
    expect(
      retryDelay(answer(503, { 'x-should-retry': 'false' }), 0, 2, 20000)
    ).toBeNull();
    class APIConnectionError extends Error {}
    expect(
      retryDelay(new APIConnectionError('x'), 0, 2, 20000)
    ).toBeGreaterThan(0);
    expect(retryDelay(new TypeError('terminated'), 0, 2, 20000)).toBeNull();
  });

  it('reads Retry-After as seconds, an HTTP date, or from a plain object', () => {
    expect(retryAfterMs(new Headers({ 'Retry-After': '3' }))).toBe(3000);
    expect(
      retryAfterMs(
        new Headers({ 'Retry-After': 'Wed, 21 Oct 2015 07:28:10 GMT' }),
        Date.parse('Wed, 21 Oct 2015 07:28:00 GMT')
      )
    ).toBe(10000);
    expect(retryAfterMs({ 'Retry-After': '2' })).toBe(2000);
    expect(retryAfterMs(new Headers({ 'Retry-After': 'soon' }))).toBeNull();
    expect(retryAfterMs(undefined)).toBeNull();
  });

  it('stops waiting at once when the user stops', async () => {
    const controller = new AbortController();
    let attempts = 0;
    const started = Date.now();
    const run = withRetries(
      async () => {
        attempts += 1;
        throw answer(429, { 'retry-after': '15' });
      },
      { signal: controller.signal }
    );
    setTimeout(() => controller.abort(), 50);
    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
    expect(attempts).toBe(1);
    expect(Date.now() - started).toBeLessThan(2000);
    await expect(abortableSleep(10, AbortSignal.abort())).rejects.toMatchObject(
      { name: 'AbortError' }
    );
  });

  it('says how long a rate-limited endpoint asks to wait', () => {
    const error = Object.assign(answer(429, { 'retry-after': '90' }), {
      error: { message: 'slow down' }
    });
    expect(describeModelError(error).hint).toContain('wait 90 s');
  });
});

describe('idle timeout', () => {
  function stalling(first: string): Response {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(first));
        // …and then nothing, ever.
      }
    });
    return new Response(body, {
      headers: { 'content-type': 'text/event-stream' }
    });
  }

  it('fails a body that stalls, with an error the user can read', async () => {
    const fetchLike = withIdleTimeout(
      async () => stalling('data: {}\n\n'),
      200
    );
    const response = await fetchLike('http://x/v1');
    const reader = response.body!.getReader();
    expect((await reader.read()).done).toBe(false);
    const started = Date.now();
    const failure = await reader.read().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ModelIdleTimeoutError);
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
    expect(describeModelError(failure)).toMatchObject({
      kind: 'timeout',
      message: expect.stringContaining('sent nothing for 0.2 s')
    });
  });

  it('leaves a body that keeps sending alone', async () => {
    const fetchLike = withIdleTimeout(
      async () => new Response('data: [DONE]\n\n'),
      50
    );
    expect(await (await fetchLike('http://x')).text()).toBe('data: [DONE]\n\n');
  });
});
