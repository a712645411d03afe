/**
 * The endpoint source: the real `openai` client's `complete()` over HTTP
 * against the scripted model server's `/v1/completions` (real SSE), and the
 * whole suggestion path on top of it.
 */
import { OpenAIChatClient } from '../../model/openai-client';
import {
  startScriptedServer,
  type IScriptedServer
} from '../../__tests__/fixtures/scripted-server';
import { CompletionScheduler } from '../completion-scheduler';
import { suggest } from '../suggest';

let server: IScriptedServer;

interface IRecorded {
  path: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
  completed?: boolean;
  disconnected_after_chunks?: number;
}

beforeAll(async () => {
  server = await startScriptedServer();
});

afterAll(() => server?.stop());

const client = (model = 'qwen2.5-coder-0.5b-instruct') =>
  new OpenAIChatClient({
    baseURL: `${server.root}/v1`,
    model,
    apiKey: 'sk-test-completion-key-2f9d1c'
  });

async function collect(stream: AsyncIterable<string>): Promise<string> {
  let text = '';
  for await (const piece of stream) {
    text += piece;
  }
  return text;
}

describe('completions over HTTP', () => {
  it('streams the text of a completions request, greedy, with the prompt and stops sent', async () => {
    await server.script([{ content: 'numbers)\nprint(total)', chunk_size: 3 }]);
    const text = await collect(
      client().complete(
        {
          prompt: '<|fim_prefix|>total = sum(<|fim_suffix|><|fim_middle|>',
          stop: ['<|endoftext|>', '\n'],
          maxTokens: 32
        },
        new AbortController().signal
      )
    );
    expect(text).toBe('numbers)\nprint(total)');
    const [request] = await server.received<IRecorded>();
    expect(request.path).toMatch(/\/v1\/completions$/);
    expect(request.body).toMatchObject({
      model: 'qwen2.5-coder-0.5b-instruct',
      prompt: '<|fim_prefix|>total = sum(<|fim_suffix|><|fim_middle|>',
      stop: ['<|endoftext|>', '\n'],
      max_tokens: 32,
      temperature: 0,
      stream: true
    });
    expect(request.body).not.toHaveProperty('suffix');
  });

  it('a suggestion through the client: the line, its request stopped once whole', async () => {
    await server.script([
      {
        content: 'numbers)\nprint(total)\n# more\n# and more',
        chunk_size: 2,
        delay: 0.05
      }
    ]);
    const result = await suggest(
      client(),
      {
        before: 'total = sum(',
        after: '',
        cellsAbove: [{ kind: 'code', source: 'numbers = [1, 2]' }]
      },
      { maxTokens: 64 },
      new AbortController().signal
    );
    expect(result.text).toBe('numbers)');
    // The client stopped reading at the newline: the server saw it leave.
    let record: IRecorded | undefined;
    for (
      let i = 0;
      i < 60 && record?.disconnected_after_chunks === undefined;
      i++
    ) {
      await new Promise(resolve => setTimeout(resolve, 50));
      [record] = await server.received<IRecorded>();
    }
    expect(record).toMatchObject({ completed: false });
    expect(record?.disconnected_after_chunks).toBeLessThan(10);
  });

  it('the next keystroke aborts the request: the server sees the connection close', async () => {
    await server.script([
      { content: 'x'.repeat(200), chunk_size: 1, delay: 0.05 },
      { content: 'numbers)' }
    ]);
    const scheduler = new CompletionScheduler(() => 0);
    const cursor = { before: 'total = sum(', after: '', cellsAbove: [] };
    const first = scheduler.schedule(signal =>
      suggest(client(), cursor, { maxTokens: 64 }, signal)
    );
    await new Promise(resolve => setTimeout(resolve, 300));
    const second = scheduler.schedule(signal =>
      suggest(client(), cursor, { maxTokens: 64 }, signal)
    );
    await expect(first).resolves.toBeNull();
    await expect(second).resolves.toMatchObject({ text: 'numbers)' });
    const [aborted] = await server.received<IRecorded>();
    expect(aborted.completed).toBe(false);
    expect(aborted.disconnected_after_chunks).toBeLessThan(100);
  });

  it('an endpoint error reaches the caller without the key', async () => {
    await server.script([
      {
        status: 404,
        error: {
          message: 'model sk-test-completion-key-2f9d1c has no completions'
        }
      }
    ]);
    await expect(
      collect(
        client().complete(
          { prompt: 'x', stop: [], maxTokens: 4 },
          new AbortController().signal
        )
      )
    ).rejects.toThrow(/404/);
    await server.script([
      {
        status: 404,
        error: {
          message: 'model sk-test-completion-key-2f9d1c has no completions'
        }
      }
    ]);
    const error = await collect(
      client().complete(
        { prompt: 'x', stop: [], maxTokens: 4 },
        new AbortController().signal
      )
    ).catch((e: Error) => e);
    expect(String((error as Error).message)).not.toContain(
      'sk-test-completion-key-2f9d1c'
    );
  });

  it('a suggestion joins only string text, as the proxy that filters a key sent in pieces does', async () => {
    const text = (value: unknown) =>
      `data: ${JSON.stringify({ object: 'text_completion', choices: [{ index: 0, text: value }] })}\n\n`;
    await server.script([
      {
        sse:
          text(['x sk-proj-AbC1']) +
          text('23xyz-0123456789ABCDEF') +
          text(' y') +
          'data: [DONE]\n\n'
      }
    ]);
    const result = await suggest(
      client(),
      { before: 'key = ', after: '', cellsAbove: [] },
      { maxTokens: 64 },
      new AbortController().signal
    );
    expect(result.raw).toBe('23xyz-0123456789ABCDEF y');
    expect(result.raw).not.toContain('sk-proj-AbC123xyz-0123456789ABCDEF');
  });
});
