import { ModelConfigError } from '../model/errors';
import { AgentSession } from '../session';
import { FakeNotebook } from '../testing/fake-notebook';
import { ScriptedModel } from '../testing/scripted-model';
import { agentTools } from '../tools/all-tools';
import { ToolRegistry } from '../tools/registry';

const tools = () => new ToolRegistry(agentTools());

describe('AgentSession', () => {
  it('refuses to start without a notebook, says how to fix it, and calls no model', () => {
    const session = new AgentSession({ tools: tools() });
    const model = new ScriptedModel([{ text: 'never' }]);
    expect(
      session.send('hello', { model: () => model, notebook: null })
    ).toBeNull();
    const state = session.getSnapshot();
    expect(state.error?.kind).toBe('no-notebook');
    expect(state.error?.hint).toContain('Open or create a notebook');
    expect(state.items).toEqual([]);
    expect(model.requests).toHaveLength(0);
  });

  it('reports a model that cannot be configured, without touching the notebook', () => {
    const session = new AgentSession({ tools: tools() });
    const notebook = new FakeNotebook();
    const result = session.send('hello', {
      model: () => {
        throw new ModelConfigError(
          'No base URL is set for direct mode.',
          'Set one in the settings.'
        );
      },
      notebook
    });
    expect(result).toBeNull();
    expect(session.getSnapshot().error).toEqual({
      kind: 'not-configured',
      message: 'No base URL is set for direct mode.',
      hint: 'Set one in the settings.'
    });
    expect(notebook.cells).toHaveLength(0);
  });

  it('builds a transcript of user text, tool cards and streamed answer, notifying subscribers', async () => {
    const session = new AgentSession({
      tools: tools(),
      approvalMode: () => 'run-everything'
    });
    const notebook = new FakeNotebook({
      execute: () => [{ type: 'stream', name: 'stdout', text: '3\n' }]
    });
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: 'insert_cell', arguments: { source: 'print(1+2)' } }
        ]
      },
      { toolCalls: [{ name: 'run_cell', arguments: { cell_id: 'cell-1' } }] },
      { text: 'It is 3.' }
    ]);
    let notifications = 0;
    session.subscribe(() => (notifications += 1));
    const before = session.getSnapshot();
    await session.send('add', { model: () => model, notebook });
    const state = session.getSnapshot();
    expect(state).not.toBe(before);
    expect(notifications).toBeGreaterThan(5);
    expect(state.status).toBe('idle');
    expect(state.items.map(i => i.kind)).toEqual([
      'user',
      'tool',
      'tool',
      'assistant'
    ]);
    expect(state.items[2]).toMatchObject({
      name: 'run_cell',
      status: 'done',
      cellId: 'cell-1'
    });
    expect(state.items[3]).toMatchObject({ text: 'It is 3.' });
    expect(state.usage).toEqual({ promptTokens: 30, completionTokens: 9 });
    // The conversation continues in the next turn, with the system prompt first.
    expect(session.history[0].role).toBe('system');
    expect(session.history[0].content).toContain('test.ipynb');
    session.newChat();
    expect(session.getSnapshot().items).toEqual([]);
    expect(session.history).toEqual([]);
  });
});
