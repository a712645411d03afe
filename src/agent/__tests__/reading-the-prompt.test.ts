/**
 * The wait before a server's first token (`onWait` of the OpenAI client),
 * over HTTP against the scripted model server: from the request until the
 * answer begins — the sidebar says "Reading the prompt…" meanwhile — and
 * over when a request fails before any token.
 */
import { OpenAIChatClient } from '../model/openai-client';
import type { IChatChunk } from '../model/types';
import {
  startScriptedServer,
  type IScriptedServer
} from './fixtures/scripted-server';

let server: IScriptedServer;

beforeAll(async () => {
  server = await startScriptedServer();
});

afterAll(() => {
  server?.stop();
});

function client(waits: Array<{ since: number | null; at: number }>) {
  return new OpenAIChatClient({
    baseURL: `${server.root}/v1`,
    model: 'scripted',
    maxRetries: 0,
    onWait: since => waits.push({ since, at: Date.now() })
  });
}

const ask = { messages: [{ role: 'user' as const, content: 'Hi' }], tools: [] };

describe('the wait for a server’s first token', () => {
  it('lasts from the request until the answer begins', async () => {
    // The server reads the prompt for 0.6 s before its first chunk.
    await server.script([
      { content: 'Hello there.', stall: 0.6, stall_after: 0, chunk_size: 4 }
    ]);
    const waits: Array<{ since: number | null; at: number }> = [];
    const chunks: Array<{ chunk: IChatChunk; waits: number }> = [];
    const sent = Date.now();
    for await (const chunk of client(waits).streamChat(
      ask,
      new AbortController().signal
    )) {
      chunks.push({ chunk, waits: waits.length });
    }
    expect(waits).toHaveLength(2);
    expect(waits[0].since).toBeGreaterThanOrEqual(sent);
    expect(waits[1].since).toBeNull();
    expect(waits[1].at - sent).toBeGreaterThanOrEqual(500);
    // Over with the first text, not before it.
    const first = chunks.findIndex(c =>
      c.chunk.choices?.some(choice => choice.delta?.content)
    );
    expect(chunks[first].waits).toBe(2);
    expect(chunks.slice(0, first).every(c => c.waits === 1)).toBe(true);
  });

  it('is over when the request fails before any token', async () => {
    await server.script([{ status: 500, error: { message: 'down' } }]);
    const waits: Array<{ since: number | null; at: number }> = [];
    const stream = client(waits).streamChat(ask, new AbortController().signal);
    await expect(stream[Symbol.asyncIterator]().next()).rejects.toThrow();
    expect(waits.map(w => w.since === null)).toEqual([false, true]);
  });
});
