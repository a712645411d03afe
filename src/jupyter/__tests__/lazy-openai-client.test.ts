/**
 * The endpoint's client as JupyterLab's start holds it (#34): the real
 * `OpenAIChatClient` loads on first use, and the lazy one streams what it
 * streams, over HTTP against the scripted model server, and keeps what it
 * learnt of the server (a required call ignored).
 */
import {
  startScriptedServer,
  type IScriptedServer
} from '../../agent/__tests__/fixtures/scripted-server';
import { TurnAccumulator } from '../../agent/model/accumulator';
import { LazyOpenAIClient } from '../core/lazy-openai-client';

let server: IScriptedServer;

beforeAll(async () => {
  server = await startScriptedServer();
});

afterAll(() => {
  server?.stop();
});

it('streams a turn through the real client, loaded on first use, and says what the server did with a required call', async () => {
  await server.script([{ content: 'Hi.' }, { content: 'No call.' }]);
  const client = new LazyOpenAIClient({
    baseURL: `${server.root}/v1`,
    model: 'm'
  });
  expect(client.model).toBe('m');
  // Nothing known before a required call was asked, nor before the load.
  expect(client.forcesToolCalls()).toBeUndefined();
  const turn = async (toolChoice?: 'required') => {
    const acc = new TurnAccumulator();
    for await (const chunk of client.streamChat(
      {
        messages: [{ role: 'user', content: 'Hello' }],
        tools: [],
        ...(toolChoice
          ? {
              tools: [
                {
                  name: 'insert_cell',
                  description: 'Insert a cell.',
                  parameters: { type: 'object', properties: {} }
                }
              ],
              toolChoice
            }
          : {})
      },
      new AbortController().signal
    )) {
      acc.add(chunk);
    }
    return acc.result().text;
  };
  expect(await turn()).toBe('Hi.');
  expect(await turn('required')).toBe('No call.');
  expect(client.forcesToolCalls()).toBe(false);
  expect((await server.received()).length).toBe(2);
});
