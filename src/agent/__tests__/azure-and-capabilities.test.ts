/**
 * Azure OpenAI through the package's own AzureOpenAI client (direct mode),
 * against the scripted server; and per-model capability overrides.
 */
import { TurnAccumulator } from '../model/accumulator';
import { capabilitiesFor } from '../model/capabilities';
import { OpenAIChatClient } from '../model/openai-client';
import {
  startScriptedServer,
  type IScriptedServer
} from './fixtures/scripted-server';

let server: IScriptedServer;

beforeAll(async () => {
  server = await startScriptedServer();
});

afterAll(() => server?.stop());

describe('Azure OpenAI in direct mode', () => {
  it('calls the deployment URL with api-version and the key in an api-key header', async () => {
    await server.script([{ content: 'Hello from Azure.' }]);
    const client = new OpenAIChatClient({
      baseURL: server.root,
      model: 'gpt-4o',
      apiKey: 'azure-secret',
      azure: { deployment: 'my-gpt4o', apiVersion: '2024-10-21' }
    });
    const turn = new TurnAccumulator();
    for await (const chunk of client.streamChat(
      { messages: [{ role: 'user', content: 'hi' }], tools: [] },
      new AbortController().signal
    )) {
      turn.add(chunk);
    }
    expect(turn.result().text).toBe('Hello from Azure.');
    const [request] = await server.received<{
      path: string;
      headers: Record<string, string>;
    }>();
    expect(request.path).toBe(
      '/openai/deployments/my-gpt4o/chat/completions?api-version=2024-10-21'
    );
    expect(request.headers['api-key']).toBe('azure-secret');
    expect(request.headers.authorization).toBeUndefined();
  });
});

describe('capability overrides', () => {
  it('apply over the built-in table, exact names and * patterns, the most specific last', () => {
    expect(capabilitiesFor('qwen2.5:7b').contextTokens).toBe(32768);
    const overrides = {
      'qwen2.5*': { contextTokens: 65536, vision: true },
      'qwen2.5:7b': { contextTokens: 131072 },
      'my-small-model': { tools: 'text' as const, parallelToolCalls: true }
    };
    expect(capabilitiesFor('qwen2.5:7b', overrides)).toMatchObject({
      contextTokens: 131072,
      vision: true,
      tools: 'native'
    });
    expect(capabilitiesFor('qwen2.5:14b', overrides).contextTokens).toBe(65536);
    expect(capabilitiesFor('my-small-model', overrides)).toMatchObject({
      tools: 'text',
      parallelToolCalls: true
    });
    // Unrelated models keep the table's values.
    expect(capabilitiesFor('gpt-4o', overrides).contextTokens).toBe(128000);
  });

  it('ignore ill-typed values instead of breaking requests', () => {
    const bad = {
      'gpt-4o': {
        contextTokens: -5,
        tools: 'sometimes',
        vision: 'yes'
      } as unknown as Record<string, never>
    };
    expect(capabilitiesFor('gpt-4o', bad)).toEqual(capabilitiesFor('gpt-4o'));
  });
});
