/**
 * The chat without its runner (chat-session.ts), as the browser holds it
 * from start, and the AgentSession built over it with the first task: one
 * state, one Stop.
 */
import { AgentSession, ChatSession } from '..';
import { FakeNotebook } from '../../testing/fake-notebook';
import { ScriptedModel } from '../../testing/scripted-model';
import { agentTools } from '../../tools/all-tools';
import { ToolRegistry } from '../../tools/registry';

const options = () => ({
  tools: new ToolRegistry(agentTools()),
  approvalMode: () => 'run-everything' as const
});

describe('a chat waiting for what runs its first task', () => {
  it('is busy meanwhile, then starts the task', () => {
    const chat = new ChatSession();
    const release = chat.holdForStart();
    expect(chat.busy).toBe(true);
    expect(chat.getSnapshot().status).toBe('running');
    expect(release()).toBe('start');
    expect(chat.busy).toBe(false);
  });

  it('says Stop was pressed meanwhile', () => {
    const chat = new ChatSession();
    const release = chat.holdForStart();
    chat.stop();
    expect(release()).toBe('stop');
  });

  it('starts nothing when another chat was opened meanwhile', () => {
    const chat = new ChatSession();
    const release = chat.holdForStart();
    chat.newChat();
    expect(release()).toBe('drop');
    expect(chat.busy).toBe(false);
  });
});

describe('an AgentSession over a chat', () => {
  it('runs in that chat’s state, and the chat’s Stop stops it', async () => {
    const chat = new ChatSession();
    const agent = new AgentSession(options(), chat);
    const notebook = new FakeNotebook({ cells: [] });
    const model = new ScriptedModel([{ text: 'Hello.' }]);
    const run = agent.send('Hi', { model: () => model, notebook });
    expect(chat.busy).toBe(true);
    await run;
    expect(chat.getSnapshot().items.map(item => item.kind)).toEqual([
      'user',
      'assistant'
    ]);
    expect(chat.history).toBe(agent.history);

    const slow = new ScriptedModel([
      { toolCalls: [{ name: 'read_notebook', arguments: {} }] },
      { text: 'never' }
    ]);
    const stopped = agent.send('Again', { model: () => slow, notebook });
    chat.stop();
    expect((await stopped)?.reason).toBe('stopped');
    expect(chat.busy).toBe(false);
  });
});
