import type { IProviderInfo } from '../../model/provider-info';
import {
  chooseCompletionSource,
  type ISourceChoiceInput
} from '../source-choice';

const provider = (over: Partial<IProviderInfo>): IProviderInfo => ({
  name: 'default',
  kind: 'openai',
  baseUrl: 'https://api.openai.com/v1',
  models: [],
  defaultModel: null,
  hasKey: true,
  keySource: 'env',
  takesKey: true,
  found: null,
  ...over
});

const input = (over: Partial<ISourceChoiceInput> = {}): ISourceChoiceInput => ({
  setting: 'auto',
  settingModel: '',
  endpointMode: 'proxy',
  agentModel: 'gpt-4o-mini',
  agentProvider: 'default',
  providers: [provider({})],
  localLoaded: false,
  ...over
});

describe('where inline completion asks', () => {
  it('auto: the agent’s model when it is a code model with a FIM format', () => {
    const choice = chooseCompletionSource(
      input({
        agentModel: 'qwen2.5-coder-1.5b-instruct',
        providers: [provider({ baseUrl: 'http://127.0.0.1:8080/v1' })]
      })
    );
    expect(choice).toEqual({
      kind: 'endpoint',
      provider: 'default',
      model: 'qwen2.5-coder-1.5b-instruct',
      sharesAgentModel: true,
      onThisMachine: true
    });
  });

  it('auto: else the smallest code model on a server found on this machine, before a configured one', () => {
    const choice = chooseCompletionSource(
      input({
        providers: [
          provider({ models: ['gpt-4o-mini', 'codestral-latest'] }),
          provider({
            name: 'ollama',
            baseUrl: 'http://127.0.0.1:11434/v1',
            found: {
              label: 'Ollama',
              port: 11434,
              models: ['llama3.2:3b', 'qwen2.5-coder:7b', 'qwen2.5-coder:1.5b']
            }
          })
        ]
      })
    );
    expect(choice).toMatchObject({
      kind: 'endpoint',
      provider: 'ollama',
      model: 'qwen2.5-coder:1.5b',
      sharesAgentModel: false,
      onThisMachine: true
    });
  });

  it('auto: a configured code model when nothing was found; none with a reason when there is none', () => {
    expect(
      chooseCompletionSource(
        input({
          providers: [provider({ models: ['gpt-4o', 'codestral-latest'] })]
        })
      )
    ).toMatchObject({
      kind: 'endpoint',
      model: 'codestral-latest',
      onThisMachine: false
    });
    const none = chooseCompletionSource(input());
    expect(none.kind).toBe('none');
    expect(none.kind === 'none' && none.reason).toMatch(
      /gpt-4o-mini has no fill-in-the-middle format.*Inline completion model/
    );
  });

  it('auto in local mode: the in-browser model only once loaded (typing starts no download)', () => {
    expect(chooseCompletionSource(input({ endpointMode: 'local' })).kind).toBe(
      'none'
    );
    expect(
      chooseCompletionSource(
        input({ endpointMode: 'local', localLoaded: true })
      )
    ).toEqual({ kind: 'local', sharesAgentModel: true, onThisMachine: true });
  });

  it('endpoint: the setting’s model (plain completion for any model); local; off', () => {
    expect(
      chooseCompletionSource(
        input({ setting: 'endpoint', settingModel: 'my-model' })
      )
    ).toMatchObject({
      kind: 'endpoint',
      provider: 'default',
      model: 'my-model',
      sharesAgentModel: false
    });
    expect(chooseCompletionSource(input({ setting: 'local' }))).toMatchObject({
      kind: 'local',
      sharesAgentModel: false
    });
    expect(chooseCompletionSource(input({ setting: 'off' }))).toEqual({
      kind: 'none',
      reason: 'Inline completion is off.'
    });
  });
});
