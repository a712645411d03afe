/**
 * A client that holds its own key (the command line, direct mode) never
 * sends it in a request body: the real `openai` client over HTTP against
 * the scripted model server, with a cell whose output prints the key.
 */
import { runAgent } from '../loop/run-agent';
import { arrayConversation } from '../loop/conversation';
import { runConfig } from '../loop/run-config';
import { keyPattern, withKeyOutOfRequests } from '../model/key-out-of-requests';
import { OpenAIChatClient } from '../model/openai-client';
import { FakeNotebook } from '../testing/fake-notebook';
import { agentTools } from '../tools/all-tools';
import { ToolRegistry } from '../tools/registry';
import {
  startScriptedServer,
  type IScriptedServer
} from './fixtures/scripted-server';

const KEY = 'sk-own-key-0123456789"abc\\def';

/** Every form a filter could miss, decoded: \u escapes (also doubled) and %XX. */
function decoded(text: string): string {
  const unescaped = text.replace(/\\{1,2}u([0-9a-fA-F]{4})/g, (_, hex) =>
    String.fromCharCode(parseInt(hex, 16))
  );
  return decodeURIComponent(unescaped.replace(/%(?![0-9a-fA-F]{2})/g, '%25'));
}

const urlEncoded = (text: string) =>
  Array.from(
    new TextEncoder().encode(text),
    byte => `%${byte.toString(16).padStart(2, '0')}`
  ).join('');
const uEscaped = (text: string) =>
  Array.from(
    text,
    c => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`
  ).join('');

let server: IScriptedServer;

beforeAll(async () => {
  server = await startScriptedServer();
});

afterAll(() => server?.stop());

describe('the client’s own key in requests', () => {
  it('matches the key raw, JSON-escaped, percent-encoded, \\u-escaped as text, and mixed', () => {
    const pattern = keyPattern(KEY);
    const inBody = (text: string) => JSON.stringify(text).slice(1, -1);
    for (const form of [
      KEY,
      urlEncoded(KEY),
      urlEncoded(KEY).toUpperCase(),
      uEscaped(KEY),
      KEY.slice(0, 10) + urlEncoded(KEY.slice(10, 20)) + uEscaped(KEY.slice(20))
    ]) {
      pattern.lastIndex = 0;
      expect(inBody(`x ${form} y`).replace(pattern, '[redacted]')).toBe(
        'x [redacted] y'
      );
    }
    pattern.lastIndex = 0;
    expect(pattern.test(inBody(KEY.slice(0, -1)))).toBe(false);
  });

  it('leaves keys under 8 characters and non-string bodies alone', async () => {
    const seen: Array<RequestInit | undefined> = [];
    const record = async (_: unknown, init?: RequestInit) => {
      seen.push(init);
      return new Response('');
    };
    await withKeyOutOfRequests(record, 'ollama')('u', { body: 'ollama' });
    const bytes = new TextEncoder().encode(KEY);
    await withKeyOutOfRequests(record, KEY)('u', { body: bytes });
    expect(seen.map(init => init?.body)).toEqual(['ollama', bytes]);
  });

  it('sends a key a cell printed as [redacted], and the key itself only as the bearer token', async () => {
    await server.script([
      {
        tool_calls: [{ name: 'insert_cell', arguments: { source: 'leak()' } }]
      },
      {
        tool_calls: [
          { name: 'run_cell', arguments: { cell_id: '{{cell_id}}' } }
        ]
      },
      { content: 'Done.' }
    ]);
    const notebook = new FakeNotebook({
      execute: () => [
        {
          type: 'stream',
          name: 'stdout',
          text: `raw ${KEY}\nencoded ${urlEncoded(KEY)}\nescaped ${uEscaped(KEY)}\n`
        }
      ]
    });
    const client = new OpenAIChatClient({
      baseURL: `${server.root}/v1`,
      model: 'scripted-model',
      apiKey: KEY
    });
    const outcome = await runAgent(
      runConfig({ model: client, tools: new ToolRegistry(agentTools()) }),
      {
        notebook,
        conversation: arrayConversation([{ role: 'user', content: 'run it' }]),
        signal: new AbortController().signal,
        onEvent: () => undefined
      }
    );
    expect(outcome).toEqual({ reason: 'completed', steps: 3, answer: 'Done.' });
    const requests = await server.received<{
      headers: Record<string, string>;
      body: { messages: Array<{ role: string; content: string }> };
    }>();
    expect(requests).toHaveLength(3);
    for (const request of requests) {
      expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
      const sent = JSON.stringify(request.body);
      expect(sent).not.toContain(KEY.slice(0, 12));
      expect(decoded(sent)).not.toContain(KEY.slice(0, 12));
    }
    const last = requests[2].body.messages;
    const observation = last[last.length - 1];
    expect(observation.role).toBe('tool');
    expect(observation.content).toContain(
      'raw [redacted]\nencoded [redacted]\nescaped [redacted]'
    );
  });
});
