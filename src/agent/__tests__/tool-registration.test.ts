/**
 * Tools added from outside (INotebookAgent.registerTool, tool servers):
 * their definition is checked, their names cannot take another tool's, their
 * arguments are validated like ours, their results are untrusted and
 * budgeted, and dispose takes them back out, through the real loop.
 */
import type { IApprovalRequest } from '../loop/approval';
import { runAgent } from '../loop/run-agent';
import { arrayConversation } from '../loop/conversation';
import { runConfig } from '../loop/run-config';
import { FakeNotebook } from '../testing/fake-notebook';
import { ScriptedModel, type ScriptedTurn } from '../testing/scripted-model';
import { agentTools } from '../tools/all-tools';
import { externalTool, type IExternalTool } from '../tools/external-tool';
import { ToolRegistrationError, ToolRegistry } from '../tools/registry';
import type { ChatMessage } from '../types';

const countWords = (
  execute: IExternalTool['execute'] = args =>
    `${String(args.text).split(/\s+/).length} words`
): IExternalTool => ({
  name: 'count_words',
  description: 'Count the words of a text.',
  parameters: {
    type: 'object',
    properties: { text: { type: 'string' } },
    required: ['text'],
    additionalProperties: false
  },
  kind: 'run',
  title: 'Count the words of this text',
  execute
});

async function run(
  tools: ToolRegistry,
  turns: ScriptedTurn[],
  options: { signal?: AbortSignal; onApproval?: () => void } = {}
) {
  const model = new ScriptedModel(turns);
  const messages: ChatMessage[] = [{ role: 'user', content: 'go' }];
  const requests: IApprovalRequest[] = [];
  const outcome = await runAgent(
    runConfig({ model, tools, approvalMode: 'ask-before-running' }),
    {
      notebook: new FakeNotebook({ path: 'work/a.ipynb' }),
      conversation: arrayConversation(messages),
      signal: options.signal ?? new AbortController().signal,
      onEvent: () => undefined,
      approve: async request => {
        requests.push(request);
        options.onApproval?.();
        return { approved: true };
      }
    }
  );
  const observations = messages
    .filter(m => m.role === 'tool')
    .map(m => m.content as string);
  return { outcome, model, observations, requests };
}

const call = (args: unknown): ScriptedTurn => ({
  toolCalls: [
    {
      name: 'count_words',
      arguments: typeof args === 'string' ? args : JSON.stringify(args)
    }
  ]
});

describe('registering a tool', () => {
  it('offers it to the model, asks per its kind with its own title, and returns its result', async () => {
    const tools = new ToolRegistry(agentTools());
    const seen: Array<{ args: unknown; path: string }> = [];
    tools.register(
      externalTool(
        countWords((args, context) => {
          seen.push({ args, path: context.notebookPath });
          return 'three words here: 3';
        })
      ),
      'test-extension'
    );
    const { model, observations, requests } = await run(tools, [
      call({ text: 'a b c' }),
      { text: 'done' }
    ]);
    expect(model.requests[0].tools?.map(t => t.name)).toContain('count_words');
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({
      kind: 'run',
      title: 'Count the words of this text',
      code: null,
      details: '{\n  "text": "a b c"\n}'
    });
    expect(seen).toEqual([{ args: { text: 'a b c' }, path: 'work/a.ipynb' }]);
    expect(observations).toEqual(['three words here: 3']);
    const next = model.requests[1].messages.filter(m => m.role === 'tool');
    expect(next[0].content).toBe('three words here: 3');
  });

  it('validates its arguments with its JSON schema before it runs', async () => {
    const tools = new ToolRegistry(agentTools());
    const execute = jest.fn(() => 'ran');
    tools.register(externalTool(countWords(execute)));
    const { observations, requests } = await run(tools, [
      call({ text: 3, extra: true }),
      { text: 'done' }
    ]);
    expect(execute).not.toHaveBeenCalled();
    expect(requests).toHaveLength(0);
    expect(observations[0]).toContain('invalid arguments for count_words');
    expect(observations[0]).toContain('/text must be string');
  });

  it("refuses a name already taken, by a built-in tool or another extension's", () => {
    const tools = new ToolRegistry(agentTools());
    expect(() =>
      tools.register(externalTool({ ...countWords(), name: 'run_cell' }))
    ).toThrow(/"run_cell" is already registered \(by Notebook Agent\)/);
    tools.register(externalTool(countWords()), 'first-extension');
    expect(() =>
      tools.register(externalTool(countWords()), 'second-extension')
    ).toThrow(/already registered \(by first-extension\)/);
    expect(() =>
      tools.register(externalTool({ ...countWords(), name: 'count words' }))
    ).toThrow(ToolRegistrationError);
    // The built-in tool is still the one the model gets.
    expect(tools.get('run_cell')?.kind).toBe('run');
  });

  it('refuses a definition a model could not use, saying what is wrong', () => {
    const bad: Array<[Partial<IExternalTool>, RegExp]> = [
      [{ description: ' ' }, /needs a description/],
      [{ parameters: { type: 'string' } }, /JSON schema of an object/],
      [{ kind: 'delete' as never }, /kind must be one of read, edit, run/],
      [{ execute: undefined as never }, /needs an execute function/]
    ];
    for (const [change, message] of bad) {
      expect(() => externalTool({ ...countWords(), ...change })).toThrow(
        message
      );
    }
  });

  it('dispose takes it back out: no longer offered, a call to it is an error, the name is free again', async () => {
    const tools = new ToolRegistry(agentTools());
    const registration = tools.register(externalTool(countWords()));
    expect(registration.isDisposed).toBe(false);
    registration.dispose();
    registration.dispose();
    expect(registration.isDisposed).toBe(true);
    expect(tools.specs.map(t => t.name)).not.toContain('count_words');
    const { observations } = await run(tools, [
      call({ text: 'a' }),
      { text: 'done' }
    ]);
    expect(observations[0]).toContain('there is no tool named "count_words"');
    // Disposing an old registration does not remove a newer one.
    const again = tools.register(externalTool(countWords()));
    registration.dispose();
    expect(tools.get('count_words')).toBeDefined();
    again.dispose();
    expect(tools.get('count_words')).toBeUndefined();
  });

  it('its result is untrusted data: ANSI stripped, data URIs elided, cut to the budget', async () => {
    const tools = new ToolRegistry(agentTools());
    const huge =
      '\u001b[31mred\u001b[0m data:image/png;base64,' +
      'A'.repeat(5000) +
      ' ' +
      'word '.repeat(20000);
    tools.register(externalTool(countWords(() => huge)));
    const { observations } = await run(tools, [
      call({ text: 'a' }),
      { text: 'done' }
    ]);
    expect(observations[0]).not.toContain('\u001b[');
    expect(observations[0]).not.toContain('A'.repeat(100));
    expect(observations[0].length).toBeLessThan(4500);
    expect(observations[0]).toMatch(/elided|omitted|…/);
  });

  it('a tool that throws or returns no text becomes an error observation, not a failed run', async () => {
    const tools = new ToolRegistry(agentTools());
    tools.register(
      externalTool(
        countWords(() => {
          throw new Error('backend down');
        })
      )
    );
    tools.register(
      externalTool({
        ...countWords(() => ({ value: 1 }) as never),
        name: 'no_text'
      })
    );
    const { outcome, observations } = await run(tools, [
      call({ text: 'a' }),
      { toolCalls: [{ name: 'no_text', arguments: { text: 'a' } }] },
      { text: 'done' }
    ]);
    expect(outcome.reason).toBe('completed');
    expect(observations[0]).toBe('Error: count_words failed: backend down');
    expect(observations[1]).toContain('returned no text observation');
  });

  it('Stop ends a call to a tool that never returns', async () => {
    const tools = new ToolRegistry(agentTools());
    tools.register(externalTool(countWords(() => new Promise(() => {}))));
    const controller = new AbortController();
    const { outcome, observations } = await run(
      tools,
      [call({ text: 'a' }), { text: 'not reached' }],
      {
        signal: controller.signal,
        onApproval: () => setTimeout(() => controller.abort(), 20)
      }
    );
    expect(outcome.reason).toBe('stopped');
    expect(observations[0]).toContain('the user stopped the agent');
  });
});
