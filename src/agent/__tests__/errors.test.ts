import { DirectFetchError, describeModelError } from '../model/errors';
import { AgentSession } from '../session';
import { FakeNotebook } from '../testing/fake-notebook';
import { ScriptedModel } from '../testing/scripted-model';
import { agentTools } from '../tools/all-tools';
import { ToolRegistry } from '../tools/registry';

const apiError = (status: number, message: string) =>
  Object.assign(new Error(`${status} ${message}`), {
    status,
    error: { message }
  });

describe('error messages', () => {
  it('tells a context overflow from other bad requests', () => {
    const overflow = describeModelError(
      apiError(
        400,
        "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens."
      )
    );
    expect(overflow.kind).toBe('context-overflow');
    expect(overflow.hint).toContain('Start a new chat');
    expect(
      describeModelError(apiError(400, 'Invalid value for temperature')).kind
    ).toBe('bad-request');
  });

  it('explains CORS and the server-side fixes when the browser cannot reach a direct endpoint', () => {
    const wrapped = Object.assign(new Error('Connection error.'), {
      cause: new DirectFetchError(
        'http://localhost:11434/v1',
        new TypeError('Failed to fetch')
      )
    });
    const described = describeModelError(wrapped);
    expect(described.kind).toBe('unreachable');
    expect(described.message).toContain('http://localhost:11434/v1');
    expect(described.message).toContain('CORS');
    expect(described.hint).toContain('OLLAMA_ORIGINS');
  });

  it('lists the endpoint’s models when the model is unknown', async () => {
    const model = Object.assign(
      new ScriptedModel([
        { error: apiError(404, 'The model `gpt-5-turbo` does not exist') }
      ]),
      {
        listModels: async () => ['gpt-4o-mini', 'gpt-4o']
      }
    );
    const session = new AgentSession({ tools: new ToolRegistry(agentTools()) });
    await session.send('hi', {
      model: () => model,
      notebook: new FakeNotebook()
    });
    await new Promise(resolve => setTimeout(resolve, 0));
    const error = session.getSnapshot().error;
    expect(error?.kind).toBe('unknown-model');
    expect(error?.hint).toContain('Available: gpt-4o-mini, gpt-4o.');
  });
});
