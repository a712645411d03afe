import { MAX_PIECE_BYTES, withBoundedChunks } from '../model/bounded-chunks';

const big = 'data: {"choices":[{"delta":{"content":"abcd"}}]}\n\n'.repeat(2000);

async function pieces(response: Response): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  const reader = response.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) {
      return out;
    }
    out.push(value);
  }
}

describe('withBoundedChunks', () => {
  it('hands an SSE body over in pieces of at most 4 KB, byte for byte', async () => {
    const fetchOne = async () =>
      new Response(new TextEncoder().encode(big), {
        status: 200,
        headers: { 'content-type': 'text/event-stream; charset=utf-8' }
      });
    const response = await withBoundedChunks(fetchOne)('http://x/v1');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('event-stream');
    const parts = await pieces(response);
    expect(parts.length).toBeGreaterThan(big.length / MAX_PIECE_BYTES - 1);
    expect(Math.max(...parts.map(p => p.length))).toBeLessThanOrEqual(
      MAX_PIECE_BYTES
    );
    const joined = Buffer.concat(parts.map(p => Buffer.from(p))).toString();
    expect(joined).toBe(big);
  });

  it('leaves other responses as they are', async () => {
    const original = new Response('{"ok":true}', {
      headers: { 'content-type': 'application/json' }
    });
    const response = await withBoundedChunks(async () => original)('x');
    expect(response).toBe(original);
  });
});
