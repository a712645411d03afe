import { ModelClientCache } from '../model/client-cache';
import { OpenAIChatClient } from '../model/openai-client';
import { AgentSession } from '../session';
import { FakeNotebook } from '../testing/fake-notebook';
import { agentTools } from '../tools/all-tools';
import { ToolRegistry } from '../tools/registry';
import {
  startScriptedServer,
  type IScriptedServer
} from './fixtures/scripted-server';

let server: IScriptedServer;

beforeAll(async () => {
  server = await startScriptedServer();
});

afterAll(() => server?.stop());

interface ISettings {
  model: string;
}

describe('the model client is built once per settings', () => {
  it('what a client learned about its server (no stream_options) lasts from one task to the next', async () => {
    let built = 0;
    const cache = new ModelClientCache((settings: ISettings) => {
      built += 1;
      return new OpenAIChatClient({
        baseURL: `${server.root}/v1`,
        model: settings.model
      });
    });
    const settings = { model: 'm' };
    const session = new AgentSession({ tools: new ToolRegistry(agentTools()) });
    const target = {
      // As the plugin does: asked at the start of every task.
      model: () => cache.get({ ...settings }),
      notebook: new FakeNotebook()
    };
    await server.script([
      { content: 'First.', reject_stream_options: true },
      { content: 'Second.', reject_stream_options: true }
    ]);
    await session.send('one', target);
    await session.send('two', target);
    const requests = await server.received<{ body: object }>();
    // The first task learned that the server rejects stream_options; the
    // second task did not send them again (a client per task would have).
    expect(requests.map(r => 'stream_options' in r.body)).toEqual([
      true,
      false,
      false
    ]);
    expect(session.getSnapshot().error).toBeNull();
    expect(built).toBe(1);
    // Other settings, another client; the same again, the same client.
    const other = cache.get({ model: 'n' });
    expect(other).not.toBe(cache.get(settings));
    expect(cache.get({ model: 'n' })).toBe(other);
    expect(built).toBe(2);
  });

  it('keeps nothing when building fails (a configuration error is asked again)', () => {
    let calls = 0;
    const cache = new ModelClientCache((settings: ISettings) => {
      calls += 1;
      throw new Error(`no model ${settings.model}`);
    });
    expect(() => cache.get({ model: '' })).toThrow('no model');
    expect(() => cache.get({ model: '' })).toThrow('no model');
    expect(calls).toBe(2);
  });
});
