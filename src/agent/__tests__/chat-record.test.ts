import { chatToMarkdown, isChatRecord, withoutImages } from '../chat-record';
import { AgentSession } from '../session';
import { FakeNotebook } from '../testing/fake-notebook';
import { ScriptedModel } from '../testing/scripted-model';
import { agentTools } from '../tools/all-tools';
import { ToolRegistry } from '../tools/registry';

const tools = () => new ToolRegistry(agentTools());

describe('saved chats', () => {
  it('record() and restore() round-trip a chat, and the restored chat continues the conversation', async () => {
    const notebook = new FakeNotebook({ path: 'work/a.ipynb' });
    const first = new AgentSession({ tools: tools() });
    await first.send('What is 6 * 7?', {
      model: () => new ScriptedModel([{ text: 'It is 42.' }]),
      notebook
    });
    const record = JSON.parse(JSON.stringify(first.record()));
    expect(isChatRecord(record)).toBe(true);
    expect(record).toMatchObject({
      id: first.chatId,
      notebook: 'work/a.ipynb',
      title: 'What is 6 * 7?'
    });

    const second = new AgentSession({ tools: tools() });
    expect(second.restore(record)).toBe(true);
    expect(second.chatId).toBe(first.chatId);
    expect(second.getSnapshot().items).toEqual(first.getSnapshot().items);
    const model = new ScriptedModel([{ text: 'Still 42.' }]);
    await second.send('And again?', { model: () => model, notebook });
    // The model sees the earlier turns.
    const contents = model.requests[0].messages.map(m => m.content);
    expect(contents).toContain('What is 6 * 7?');
    expect(contents).toContain('It is 42.');
    const ids = second.getSnapshot().items.map(i => i.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('new chats get new ids and belong to the given notebook', () => {
    const session = new AgentSession({ tools: tools() });
    const before = session.chatId;
    session.newChat('b.ipynb');
    expect(session.chatId).not.toBe(before);
    expect(session.notebookPath).toBe('b.ipynb');
    expect(session.getSnapshot().items).toEqual([]);
  });

  it('a moved notebook takes its chat along: same chat, new path, listeners told', async () => {
    const session = new AgentSession({ tools: tools() });
    await session.send('Hi', {
      model: () => new ScriptedModel([{ text: 'Hello.' }]),
      notebook: new FakeNotebook({ path: 'old.ipynb' })
    });
    const before = session.getSnapshot();
    let told = 0;
    session.subscribe(() => (told += 1));
    session.notebookMoved('data/new.ipynb');
    expect(told).toBe(1);
    expect(session.notebookPath).toBe('data/new.ipynb');
    expect(session.getSnapshot().items).toBe(before.items);
    expect(session.record()).toMatchObject({
      notebook: 'data/new.ipynb',
      title: 'Hi'
    });
    session.notebookMoved('data/new.ipynb');
    expect(told).toBe(1);
  });

  it('drops image payloads from the saved history', () => {
    const saved = withoutImages([
      {
        role: 'user',
        content: 'Observation',
        observation: true,
        images: [{ mime: 'image/png', base64: 'AAAA'.repeat(1000) }]
      }
    ]);
    expect(JSON.stringify(saved)).not.toContain('AAAA');
    expect(saved[0].content).toContain('1 image(s) not kept');
  });

  it('exports as markdown with a fence that the content cannot close', () => {
    const markdown = chatToMarkdown({
      title: 'Plot sales',
      notebook: 'a.ipynb',
      usage: { promptTokens: 10, completionTokens: 5 },
      items: [
        { kind: 'user', id: 'item-1', text: 'Plot sales' },
        {
          kind: 'tool',
          id: 'c1',
          name: 'run_cell',
          arguments: '{"cell_id":"x"}',
          status: 'done',
          output: 'has ``` inside',
          durationMs: 1500
        },
        { kind: 'assistant', id: 'item-2', text: 'Done.' }
      ]
    });
    expect(markdown).toContain('# Plot sales');
    expect(markdown).toContain('**run_cell** (done, 1.5 s)');
    expect(markdown).toContain('````text\nhas ``` inside\n````');
    expect(markdown).toContain('## Notebook Agent\n\nDone.');
    expect(markdown).toContain('Tokens: 10 prompt + 5 completion.');
  });
});

describe('the chat New chat replaces', () => {
  it('is handed over once, with its last changes, so it can be saved', async () => {
    const session = new AgentSession({ tools: tools() });
    await session.send('First topic', {
      model: () => new ScriptedModel([{ text: 'Answer one.' }]),
      notebook: new FakeNotebook()
    });
    const id = session.chatId;
    session.newChat();
    const closed = session.takeClosedRecord();
    expect(closed?.id).toBe(id);
    expect(JSON.stringify(closed?.entries)).toContain('Answer one.');
    expect(session.takeClosedRecord()).toBeNull();
    // An empty chat replaced by another is nothing to save.
    session.newChat();
    expect(session.takeClosedRecord()).toBeNull();
  });
});
