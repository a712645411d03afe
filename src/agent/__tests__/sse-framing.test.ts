/**
 * The recorded streams (fixtures/chunks) served byte for byte by the scripted
 * model server and read by the real `openai` client: the SDK's own SSE parser
 * meets CRLF, comments, multi-line data, error events and missing [DONE], and
 * the test-side parser the quirk tests use is checked against it.
 */
import { runAgent } from '../loop/run-agent';
import { arrayConversation } from '../loop/conversation';
import { runConfig } from '../loop/run-config';
import { TurnAccumulator } from '../model/accumulator';
import { describeModelError } from '../model/errors';
import { OpenAIChatClient } from '../model/openai-client';
import type { IChatChunk } from '../model/types';
import { FakeNotebook } from '../testing/fake-notebook';
import { agentTools } from '../tools/all-tools';
import { ToolRegistry } from '../tools/registry';
import type { AgentEvent, ChatMessage } from '../types';
import { fixtureNames, parseSse, readFixture } from './fixtures/chunks/sse';
import {
  startScriptedServer,
  type IScriptedServer
} from './fixtures/scripted-server';

let server: IScriptedServer;
let root: string;

/** Serve `raw` as the body of the next response, in `chunkSize`-byte pieces. */
async function serveRaw(raw: string, chunkSize?: number): Promise<void> {
  await fetch(`${root}/_script`, {
    method: 'POST',
    body: JSON.stringify({ turns: [{ sse: raw, chunk_size: chunkSize }] })
  });
}

function client(): OpenAIChatClient {
  // No retries: an error event must surface at once.
  return new OpenAIChatClient({ baseURL: `${root}/v1`, model: 'm' });
}

/** Read one turn through the real client: the chunks, and what it threw. */
async function readTurn(): Promise<{ chunks: IChatChunk[]; error: unknown }> {
  const chunks: IChatChunk[] = [];
  try {
    for await (const chunk of client().streamChat(
      { messages: [{ role: 'user', content: 'hi' }], tools: [] },
      new AbortController().signal
    )) {
      chunks.push(chunk);
    }
  } catch (error) {
    return { chunks, error };
  }
  return { chunks, error: null };
}

beforeAll(async () => {
  server = await startScriptedServer();
  root = server.root;
});

afterAll(() => {
  server?.stop();
});

describe('recorded streams through the openai SDK', () => {
  it.each(fixtureNames())(
    '%s: the SDK yields the chunks the test parser finds',
    async name => {
      const raw = readFixture(name);
      await serveRaw(raw, 7);
      const { chunks, error } = await readTurn();
      const expected = parseSse(raw);
      const last = expected[expected.length - 1];
      if (last?.error) {
        // The SDK throws the error event instead of yielding it.
        expect(chunks).toEqual(expected.slice(0, -1));
        expect(error).toMatchObject({ status: undefined, error: last.error });
      } else {
        expect(error).toBeNull();
        expect(chunks).toEqual(expected);
      }
    }
  );

  it('parses CRLF, comments, event fields and multi-line data split byte by byte', async () => {
    const raw = readFixture('sse-framing');
    expect(raw).toContain('\r\n');
    await serveRaw(raw, 1);
    const { chunks, error } = await readTurn();
    expect(error).toBeNull();
    const acc = new TurnAccumulator();
    const added = chunks.map(chunk => acc.add(chunk));
    expect(added).toEqual(['', 'Hello', ', world', '']);
    expect(acc.result()).toMatchObject({
      text: 'Hello, world',
      finishReason: 'stop'
    });
  });

  it('ends a stream without [DONE] normally', async () => {
    await serveRaw(readFixture('no-done'));
    const { chunks, error } = await readTurn();
    expect(error).toBeNull();
    const acc = new TurnAccumulator();
    chunks.forEach(chunk => acc.add(chunk));
    expect(acc.result()).toMatchObject({
      text: 'Done: 3 cells updated.',
      finishReason: 'stop'
    });
  });

  it('reports a string error event (TGI) with its text', async () => {
    await serveRaw(readFixture('tgi-error-string'));
    const { error } = await readTurn();
    const described = describeModelError(error);
    expect(described.kind).toBe('server');
    expect(described.message).toBe(
      'The model server failed in the middle of its answer: Request failed ' +
        'during generation: Server error: CUDA out of memory. Tried to allocate 2.00 GiB'
    );
  });

  it('shows the partial answer and a clear error when the stream sends an error object', async () => {
    await serveRaw(readFixture('midstream-error'), 16);
    const events: AgentEvent[] = [];
    const messages: ChatMessage[] = [{ role: 'user', content: 'show rows' }];
    const outcome = await runAgent(
      runConfig({ model: client(), tools: new ToolRegistry(agentTools()) }),
      {
        notebook: new FakeNotebook(),
        conversation: arrayConversation(messages),
        signal: new AbortController().signal,
        onEvent: event => events.push(event)
      }
    );
    expect(outcome.reason).toBe('error');
    const text = events
      .map(event => (event.type === 'text-delta' ? event.text : ''))
      .join('');
    expect(text).toBe('The first three rows');
    expect(outcome.error).toEqual({
      kind: 'server',
      message:
        'The model server failed in the middle of its answer: The server had ' +
        'an error while processing your request. Sorry about that!',
      hint: expect.stringContaining('Try again')
    });
    expect(events[events.length - 1]).toMatchObject({
      type: 'end',
      reason: 'error',
      error: outcome.error
    });
  });
});
