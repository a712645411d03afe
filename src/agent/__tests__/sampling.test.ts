/**
 * The small profile samples greedily: every request of its runs carries
 * temperature 0 (a request's own temperature stands); other profiles send
 * none, leaving the server's default.
 */
import { TextProtocolClient } from '../loop/text-protocol-client';
import { SamplingClient, SMALL_MODEL_TEMPERATURE } from '../model/sampling';
import type { IChatRequest } from '../model/types';
import { prepareRun } from '../session/run-setup';
import type { ISessionOptions } from '../session/types';
import { ScriptedModel } from '../testing/scripted-model';
import { agentTools } from '../tools/all-tools';
import { ToolRegistry } from '../tools/registry';

const signal = new AbortController().signal;

async function play(
  model: { streamChat: ScriptedModel['streamChat'] },
  request: IChatRequest
) {
  for await (const chunk of model.streamChat(request, signal)) {
    void chunk;
  }
}

describe('the small profile’s sampling', () => {
  const ask: IChatRequest = {
    messages: [{ role: 'user', content: 'hi' }],
    tools: []
  };

  it('adds its temperature to a request that names none, and keeps a named one', async () => {
    const inner = new ScriptedModel([{ text: 'a' }, { text: 'b' }]);
    const client = new SamplingClient(inner, 0);
    await play(client, ask);
    await play(client, { ...ask, temperature: 0.7 });
    expect(inner.requests.map(r => r.temperature)).toEqual([0, 0.7]);
    expect(client.model).toBe(inner.model);
  });

  it('is greedy for small models in both protocols, and absent for the standard profile', async () => {
    const tools = new ToolRegistry(agentTools());
    const temperatureOf = async (options: Partial<ISessionOptions>) => {
      const inner = new ScriptedModel([{ text: 'a' }]);
      const setup = prepareRun(
        { tools, smallTools: tools, ...options } as ISessionOptions,
        inner,
        'n.ipynb',
        tools
      );
      await play(setup.model, ask);
      return inner.requests[0].temperature;
    };
    expect(SMALL_MODEL_TEMPERATURE).toBe(0);
    expect(
      await temperatureOf({
        profile: () => 'small',
        toolProtocol: () => 'text'
      })
    ).toBe(0);
    expect(
      await temperatureOf({
        profile: () => 'small',
        toolProtocol: () => 'native'
      })
    ).toBe(0);
    expect(
      await temperatureOf({
        profile: () => 'standard',
        toolProtocol: () => 'native'
      })
    ).toBeUndefined();
  });

  it('keeps the endpoint’s model list and warm-up reachable through the wrappers', async () => {
    const prepared: string[] = [];
    const inner = Object.assign(new ScriptedModel([]), {
      listModels: async () => ['a', 'b'],
      prepare: () => prepared.push('prepared')
    });
    const wrapped = new TextProtocolClient(new SamplingClient(inner, 0));
    // The runner offers these names when the endpoint does not know the model.
    await expect(wrapped.listModels()).resolves.toEqual(['a', 'b']);
    wrapped.prepare();
    expect(prepared).toEqual(['prepared']);
    await expect(
      new SamplingClient(new ScriptedModel([]), 0).listModels()
    ).resolves.toEqual([]);
  });
});
