import { ChatSession } from '../../session/chat-session';
import { FakeNotebook } from '../../testing/fake-notebook';
import { agentTools } from '../../tools/all-tools';
import { ToolRegistry } from '../../tools/registry';
import {
  OutsideSession,
  OWN_AGENT_BUSY,
  type IOutsideCall
} from '../outside-session';

const tools = new ToolRegistry(agentTools());

function call(
  tool: string,
  args: Record<string, unknown>,
  session = 'session-a',
  id = String(Math.random())
): IOutsideCall {
  return {
    id,
    session,
    client: 'Claude Code',
    tool,
    arguments: { notebook: 'analysis.ipynb', ...args }
  };
}

function setup(cells = [{ id: 'c1', source: 'x = 1' }]) {
  const chat = new ChatSession();
  const outside = new OutsideSession(chat, 60_000);
  const notebook = new FakeNotebook({ path: 'analysis.ipynb', cells });
  const target = {
    notebook,
    tools,
    approvalMode: 'ask-before-running' as const
  };
  return { chat, outside, notebook, target };
}

describe('an outside run in the sidebar chat', () => {
  afterEach(() => jest.useRealTimers());

  it('shows the client at work, a card per call, and answers the observation', async () => {
    const { chat, outside, target } = setup();
    const result = await outside.call(call('read_notebook', {}), target);
    expect(result.isError).toBe(false);
    expect(result.content[0]).toMatchObject({ type: 'text' });
    expect((result.content[0] as { text: string }).text).toContain('c1');
    const items = chat.getSnapshot().items;
    expect(items[0]).toMatchObject({
      kind: 'notice',
      text: 'Claude Code is working in analysis.ipynb'
    });
    expect(items[1]).toMatchObject({
      kind: 'tool',
      name: 'read_notebook',
      status: 'done'
    });
    expect(chat.busy).toBe(true);
    // The chat's model reads a valid conversation: whose call it was, the call, its answer.
    expect(chat.history.map(m => m.role)).toEqual([
      'user',
      'assistant',
      'tool'
    ]);
    expect(chat.history[0].content).toContain('Claude Code, an outside agent');
    outside.sessionEnded('session-a');
    expect(chat.busy).toBe(false);
  });

  it('asks in the sidebar before running, and runs what the user approved', async () => {
    const { chat, outside, notebook, target } = setup();
    await outside.call(call('read_notebook', {}), target);
    const running = outside.call(
      call('insert_cell', { source: 'print(2)', run: true }),
      target
    );
    await new Promise(resolve => setTimeout(resolve, 10));
    expect(chat.getSnapshot().pendingApproval).not.toBeNull();
    chat.resolveApproval({ approved: true });
    const result = await running;
    expect(result.isError).toBe(false);
    expect(notebook.cells.map(c => c.source)).toContain('print(2)');
    outside.sessionEnded('session-a');
    // One undo group for the whole outside run.
    expect(notebook.undoGroups).toEqual(['begin', 'end']);
  });

  it('refuses a stale cell as the own agent does', async () => {
    const { outside, notebook, target } = setup();
    await outside.call(call('read_notebook', {}), target);
    notebook.cells[0].source = 'x = 2  # the user changed it';
    const result = await outside.call(
      call('edit_cell', { cell_id: 'c1', source: 'x = 3' }),
      target
    );
    expect(result.isError).toBe(true);
    expect(notebook.cells[0].source).toBe('x = 2  # the user changed it');
    outside.sessionEnded('session-a');
  });

  it('Stop ends the run, and later calls of that client in that notebook are refused', async () => {
    const { chat, outside, notebook, target } = setup();
    await outside.call(call('read_notebook', {}), target);
    chat.stop();
    expect(chat.busy).toBe(false);
    expect(chat.getSnapshot().items.at(-1)).toMatchObject({
      kind: 'notice',
      text: expect.stringContaining('You stopped Claude Code')
    });
    const after = await outside.call(
      call('insert_cell', { source: 'print(3)' }),
      target
    );
    expect(after.isError).toBe(true);
    expect(after.content[0]).toMatchObject({
      text: expect.stringContaining('The user stopped your run')
    });
    expect(notebook.cells).toHaveLength(1);
  });

  it('never works beside the own agent or another outside agent', async () => {
    const { chat, outside, target } = setup();
    const release = chat.holdForStart(); // the own agent's task, starting
    const refused = await outside.call(call('read_notebook', {}), target);
    expect(refused.content[0]).toMatchObject({ text: OWN_AGENT_BUSY });
    release();
    await outside.call(call('read_notebook', {}), target);
    const other = await outside.call(
      call('read_notebook', {}, 'session-b'),
      target
    );
    expect(other.isError).toBe(true);
    expect(other.content[0]).toMatchObject({
      text: expect.stringContaining('Claude Code is working in analysis.ipynb')
    });
  });

  it('ends a run left idle', async () => {
    jest.useFakeTimers();
    const { chat, outside, notebook, target } = setup();
    await outside.call(call('read_notebook', {}), target);
    jest.advanceTimersByTime(60_001);
    expect(chat.busy).toBe(false);
    expect(notebook.undoGroups).toEqual(['begin', 'end']);
  });
});
