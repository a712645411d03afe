/**
 * The real `openai` client over HTTP against the scripted model server
 * (tests/scripted_model_server.py): real SSE, tool-call deltas split across
 * chunks, and the requests the server received.
 */
import { getEventListeners } from 'events';
import { runAgent } from '../loop/run-agent';
import { arrayConversation } from '../loop/conversation';
import { runConfig } from '../loop/run-config';
import { TurnAccumulator } from '../model/accumulator';
import { describeModelError } from '../model/errors';
import { OpenAIChatClient } from '../model/openai-client';
import type { IChatRequest } from '../model/types';
import { FakeNotebook } from '../testing/fake-notebook';
import { agentTools } from '../tools/all-tools';
import { ToolRegistry } from '../tools/registry';
import type { ChatMessage } from '../types';
import {
  freePort,
  startScriptedServer,
  type IScriptedServer
} from './fixtures/scripted-server';

let server: IScriptedServer;
let baseURL: string;

interface IRecorded {
  headers: Record<string, string>;
  body: {
    messages: Array<Record<string, unknown>>;
    tools?: unknown[];
    stream_options?: unknown;
    temperature?: number;
    tool_choice?: unknown;
  };
}

const script = (turns: unknown[]) => server.script(turns);
const received = () => server.received<IRecorded>();

beforeAll(async () => {
  server = await startScriptedServer();
  baseURL = `${server.root}/v1`;
});

afterAll(() => {
  server?.stop();
});

describe('OpenAIChatClient over HTTP', () => {
  it('drives the loop with tool calls streamed over SSE and sends the observations back', async () => {
    await script([
      {
        tool_calls: [
          { name: 'insert_cell', arguments: { source: 'print(6 * 7)' } }
        ],
        chunk_size: 3
      },
      {
        tool_calls: [
          { name: 'run_cell', arguments: { cell_id: '{{cell_id}}' } }
        ]
      },
      { content: 'It printed 42.' }
    ]);
    const notebook = new FakeNotebook({
      execute: source => [
        {
          type: 'stream',
          name: 'stdout',
          text: source === 'print(6 * 7)' ? '42\n' : '?\n'
        }
      ]
    });
    const messages: ChatMessage[] = [{ role: 'user', content: 'compute 6*7' }];
    const client = new OpenAIChatClient({
      baseURL,
      model: 'scripted-model',
      apiKey: 'sk-test'
    });
    const outcome = await runAgent(
      runConfig({ model: client, tools: new ToolRegistry(agentTools()) }),
      {
        notebook,
        conversation: arrayConversation(messages),
        signal: new AbortController().signal,
        onEvent: () => undefined
      }
    );
    expect(outcome).toEqual({
      reason: 'completed',
      steps: 3,
      answer: 'It printed 42.'
    });
    expect(notebook.cells[0]).toMatchObject({
      source: 'print(6 * 7)',
      executionCount: 1
    });
    const requests = await received();
    expect(requests).toHaveLength(3);
    expect(requests[0].headers.authorization).toBe('Bearer sk-test');
    expect(requests[0].body.tools).toHaveLength(agentTools().length);
    const last = requests[2].body.messages;
    const toolReply = last[last.length - 1];
    expect(toolReply.role).toBe('tool');
    expect(toolReply.content).toContain('42');
    expect(last[last.length - 2]).toMatchObject({
      role: 'assistant',
      tool_calls: [
        {
          type: 'function',
          function: {
            name: 'run_cell',
            arguments: `{"cell_id": "${notebook.cells[0].id}"}`
          }
        }
      ]
    });
    expect(messages[messages.length - 1]).toEqual({
      role: 'assistant',
      content: 'It printed 42.'
    });
  });

  it('classifies a 401 from the endpoint as a key problem', async () => {
    await script([
      { status: 401, error: { message: 'Incorrect API key provided' } }
    ]);
    const client = new OpenAIChatClient({
      baseURL,
      model: 'm',
      apiKey: 'wrong'
    });
    const stream = client.streamChat(
      { messages: [{ role: 'user', content: 'hi' }], tools: [] },
      new AbortController().signal
    );
    const error = await (async () => {
      try {
        for await (const chunk of stream) {
          void chunk;
        }
      } catch (e) {
        return e;
      }
      return null;
    })();
    const described = describeModelError(error);
    expect(described.kind).toBe('auth');
    expect(described.message).toContain('Incorrect API key provided');
  });

  it('classifies an unreachable endpoint', async () => {
    const port = await freePort();
    const client = new OpenAIChatClient({
      baseURL: `http://127.0.0.1:${port}/v1`,
      model: 'm'
    });
    let caught: unknown = null;
    try {
      for await (const chunk of client.streamChat(
        { messages: [{ role: 'user', content: 'hi' }], tools: [] },
        new AbortController().signal
      )) {
        void chunk;
      }
    } catch (e) {
      caught = e;
    }
    expect(describeModelError(caught).kind).toBe('unreachable');
  }, 60000);

  it('asks for usage by default and reads the usage chunk', async () => {
    await script([{ content: 'Hi.' }]);
    const client = new OpenAIChatClient({ baseURL, model: 'm' });
    const turn = await playTurn(client);
    expect(turn).toMatchObject({
      text: 'Hi.',
      usage: { promptTokens: 10, completionTokens: 5 }
    });
    const [request] = await received();
    expect(request.body.stream_options).toEqual({ include_usage: true });
  });

  it('leaves no listener on the run’s signal after its requests, chat and completion, and a stop still ends one', async () => {
    const run = new AbortController();
    const listeners = () => getEventListeners(run.signal, 'abort').length;
    await script(
      Array.from({ length: 12 }, (_, i) => ({ content: `Turn ${i}.` }))
    );
    const client = new OpenAIChatClient({ baseURL, model: 'm' });
    for (let i = 0; i < 11; i++) {
      expect((await playTurn(client, undefined, {}, run.signal)).text).toBe(
        `Turn ${i}.`
      );
    }
    expect(listeners()).toBe(0);
    const pieces: string[] = [];
    for await (const piece of client.complete(
      { prompt: 'x = ', maxTokens: 8, stop: [] },
      run.signal
    )) {
      pieces.push(piece);
    }
    expect(pieces.join('')).toBe('Turn 11.');
    expect(listeners()).toBe(0);
    // While a request streams, the run's stop reaches it.
    await script([{ content: 'A long answer.', stall: 30, stall_after: 1 }]);
    const started = Date.now();
    const stopping = playTurn(client, undefined, {}, run.signal);
    setTimeout(() => run.abort(), 300);
    // The stream ends where it was (the client ends a stopped stream quietly),
    // long before the server's 30 s stall is over.
    const { text } = await stopping;
    expect('A long answer.'.startsWith(text) && text !== 'A long answer.').toBe(
      true
    );
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('a completion joins the first choice the stream names, whatever its place in each chunk', async () => {
    const event = (choices: unknown[]) =>
      `data: ${JSON.stringify({ object: 'text_completion', choices })}\n\n`;
    await script([
      {
        sse:
          event([{ index: 0, text: 'x sk-proj-A', finish_reason: 'length' }]) +
          event([{ index: 1, text: 'bC123' }]) +
          event([
            { index: 1, text: 'more' },
            { index: 0, text: ' y' }
          ]) +
          'data: [DONE]\n\n'
      }
    ]);
    const client = new OpenAIChatClient({ baseURL, model: 'm' });
    const pieces: string[] = [];
    for await (const piece of client.complete(
      { prompt: 'x = ', maxTokens: 8, stop: [] },
      new AbortController().signal
    )) {
      pieces.push(piece);
    }
    expect(pieces).toEqual(['x sk-proj-A', ' y']);
  });

  // The server's proxy takes a key streamed in pieces out by joining the
  // string values of each field: a piece of another type must not join.
  describe('joins only strings, as the proxy does', () => {
    const KEY = 'sk-proj-AbC123xyz-0123456789ABCDEF';
    const HEX = '4f9a1c0e7b2d4a6f8e3c1b0a9d7e5f21';
    const event = (body: Record<string, unknown>) =>
      `data: ${JSON.stringify(body)}\n\n`;
    const chat = (delta: unknown, finish: string | null = null) =>
      event({
        object: 'chat.completion.chunk',
        choices: [{ index: 0, delta, finish_reason: finish }]
      });

    it('a completion leaves out text that is not a string', async () => {
      const text = (value: unknown) =>
        event({
          object: 'text_completion',
          choices: [{ index: 0, text: value }]
        });
      await script([
        {
          sse:
            text(['x sk-proj-AbC1']) +
            text('23xyz-0123456789ABCDEF') +
            text(7) +
            text({ t: 'x' }) +
            text(' y') +
            'data: [DONE]\n\n'
        }
      ]);
      const client = new OpenAIChatClient({ baseURL, model: 'm' });
      const pieces: unknown[] = [];
      for await (const piece of client.complete(
        { prompt: 'x = ', maxTokens: 8, stop: [] },
        new AbortController().signal
      )) {
        pieces.push(piece);
      }
      expect(pieces).toEqual(['23xyz-0123456789ABCDEF', ' y']);
      expect(pieces.join('')).not.toContain(KEY);
    });

    it('a chat turn leaves out content and arguments that are not strings (an object’s arguments stay)', async () => {
      const call = (
        index: number,
        fn: Record<string, unknown>,
        id?: string
      ) => ({
        tool_calls: [{ index, ...(id ? { id } : {}), function: fn }]
      });
      await script([
        {
          sse:
            chat({ content: 'x sk-proj-AbC1' }) +
            chat({ content: ['23xyz-0123456789ABCDEF'] }) +
            chat(call(0, { name: 'f', arguments: 4 }, 'a')) +
            chat(call(0, { arguments: HEX.slice(1) })) +
            chat(
              call(1, { name: 'g', arguments: { n: 1 } }, 'b'),
              'tool_calls'
            ) +
            'data: [DONE]\n\n'
        },
        {
          sse:
            chat({ function_call: { name: 'f', arguments: 4 } }) +
            chat({ function_call: { arguments: HEX.slice(1) } }) +
            'data: [DONE]\n\n'
        },
        {
          sse:
            chat(
              call(0, { name: 'h', arguments: 'nbk-Zq8Xw2Lm5TpR-' }, 'c'),
              'tool_calls'
            ) +
            chat(call(0, { arguments: 20250117 })) +
            'data: [DONE]\n\n'
        }
      ]);
      const client = new OpenAIChatClient({ baseURL, model: 'm' });
      const first = await playTurn(client);
      expect(first.text).toBe('x sk-proj-AbC1');
      expect(first.toolCalls.map(c => [c.name, c.arguments])).toEqual([
        ['f', HEX.slice(1)],
        ['g', '{"n":1}']
      ]);
      const legacy = await playTurn(client);
      expect(legacy.toolCalls[0].arguments).toBe(HEX.slice(1));
      const late = await playTurn(client);
      expect(late.toolCalls[0].arguments).toBe('nbk-Zq8Xw2Lm5TpR-');
      for (const turn of [first, legacy, late]) {
        expect(JSON.stringify(turn)).not.toContain(KEY);
        expect(JSON.stringify(turn)).not.toContain(HEX);
      }
    });
  });

  it('sends the temperature a request names, and none otherwise', async () => {
    await script([{ content: 'A.' }, { content: 'B.' }]);
    const client = new OpenAIChatClient({ baseURL, model: 'm' });
    await playTurn(client, 0);
    await playTurn(client);
    const [greedy, plain] = await received();
    expect(greedy.body.temperature).toBe(0);
    expect(plain.body).not.toHaveProperty('temperature');
  });

  it('remembers whether the server made the model call a tool when one was required', async () => {
    await script([
      { content: 'Hi.' },
      { content: 'There are 2000 orders.' },
      {
        tool_calls: [
          { name: 'insert_cell', arguments: { source: 'print(len(df))' } }
        ]
      }
    ]);
    const client = new OpenAIChatClient({ baseURL, model: 'm' });
    const spec = {
      name: 'insert_cell',
      description: 'Insert a cell.',
      parameters: { type: 'object', properties: {} }
    };
    const forced = async (toolChoice: 'auto' | 'required' | { name: string }) =>
      (
        await playTurn(client, undefined, {
          tools: [spec],
          toolChoice
        })
      ).toolCalls.length;
    expect(await forced('auto')).toBe(0);
    // Not asked yet: nothing is known.
    expect(client.forcesToolCalls()).toBeUndefined();
    expect(await forced('required')).toBe(0);
    expect(client.forcesToolCalls()).toBe(false);
    expect(await forced({ name: 'insert_cell' })).toBe(1);
    expect(client.forcesToolCalls()).toBe(true);
    const requests = await received();
    expect(requests.map(r => r.body.tool_choice)).toEqual([
      'auto',
      'required',
      { type: 'function', function: { name: 'insert_cell' } }
    ]);
  });

  it('leaves stream_options out when includeUsage is false', async () => {
    await script([{ content: 'Hi.' }]);
    const client = new OpenAIChatClient({
      baseURL,
      model: 'm',
      includeUsage: false
    });
    expect((await playTurn(client)).text).toBe('Hi.');
    const [request] = await received();
    expect(request.body).not.toHaveProperty('stream_options');
  });

  it('retries once without stream_options when the server rejects them, and remembers', async () => {
    await script([
      { content: 'First.', reject_stream_options: true },
      { content: 'Second.', reject_stream_options: true }
    ]);
    const client = new OpenAIChatClient({ baseURL, model: 'm' });
    expect((await playTurn(client)).text).toBe('First.');
    expect((await playTurn(client)).text).toBe('Second.');
    const requests = await received();
    expect(requests.map(r => 'stream_options' in r.body)).toEqual([
      true,
      false,
      false
    ]);
  });

  it('does not retry a 400 that is not about stream_options', async () => {
    await script([
      { status: 400, error: { message: 'model "m" not found' } },
      { content: 'never played' }
    ]);
    const client = new OpenAIChatClient({ baseURL, model: 'm' });
    const error = await playTurn(client).then(
      () => null,
      (e: unknown) => e
    );
    expect(describeModelError(error)).toMatchObject({
      kind: 'bad-request',
      message: expect.stringContaining('model "m" not found')
    });
    expect(await received()).toHaveLength(1);
  });
});

/** Stream one turn from `client` into a TurnAccumulator. */
async function playTurn(
  client: OpenAIChatClient,
  temperature?: number,
  more: Partial<IChatRequest> = {},
  signal = new AbortController().signal
) {
  const acc = new TurnAccumulator();
  for await (const chunk of client.streamChat(
    {
      messages: [{ role: 'user', content: 'hi' }],
      tools: [],
      ...(temperature !== undefined ? { temperature } : {}),
      ...more
    },
    signal
  )) {
    acc.add(chunk);
  }
  return acc.result();
}
