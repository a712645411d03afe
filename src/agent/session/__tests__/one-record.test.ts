/**
 * One record of a conversation (#34): the chat keeps one list of entries;
 * the model's history and the transcript are both derived from it, the
 * saved chat holds it once, and a chat saved in the old format (the
 * transcript and the history apart) opens and is converted.
 */
import type { IChatRecord } from '../../chat-record';
import { arrayConversation } from '../../loop/conversation';
import { runAgent } from '../../loop/run-agent';
import { runConfig } from '../../loop/run-config';
import { FakeNotebook } from '../../testing/fake-notebook';
import { ScriptedModel } from '../../testing/scripted-model';
import { agentTools } from '../../tools/all-tools';
import { ToolRegistry } from '../../tools/registry';
import type { AgentEvent, ChatMessage } from '../../types';
import { AgentSession } from '../agent-session';
import { historyOf } from '../chat-entries';
import { SessionStore } from '../store';
import { transcriptOf } from '../transcript';

const tools = () => new ToolRegistry(agentTools());

/** A session after one prompt that inserted and ran a cell, then answered. */
async function oneRun(): Promise<AgentSession> {
  const session = new AgentSession({
    tools: tools(),
    approvalMode: () => 'run-everything'
  });
  await session.send('Print 42.', {
    model: () =>
      new ScriptedModel([
        {
          text: 'I add a cell.',
          toolCalls: [
            {
              name: 'insert_cell',
              arguments: { source: 'print(42)', run: true }
            }
          ]
        },
        { text: 'It printed 42.' }
      ]),
    notebook: new FakeNotebook({
      execute: () => [{ type: 'stream', name: 'stdout', text: '42\n' }]
    })
  });
  return session;
}

describe('one record of a conversation', () => {
  it('derives both the model’s history and the transcript from the one list it saves', async () => {
    const session = await oneRun();
    const saved = JSON.parse(JSON.stringify(session.record())) as IChatRecord;
    // Saved once: the entries, not a transcript and a history beside them.
    expect(saved.version).toBe(2);
    expect(saved.items).toBeUndefined();
    expect(saved.history).toBeUndefined();
    const entries = saved.entries ?? [];
    expect(historyOf(entries)).toEqual(session.history);
    expect(transcriptOf(entries)).toEqual(session.getSnapshot().items);
    // A call's card and the message that answered it are one entry.
    const call = entries.find(entry => entry.kind === 'call');
    expect(call).toMatchObject({
      kind: 'call',
      card: {
        name: 'insert_cell',
        code: 'print(42)',
        toolKind: 'run',
        status: 'done'
      },
      message: { role: 'tool' }
    });
    expect(call?.kind === 'call' && call.message?.content).toContain('42');
    expect(session.getSnapshot().items.map(item => item.kind)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant'
    ]);
  });

  it('reopens a saved chat to the same transcript and history, and goes on from it', async () => {
    const first = await oneRun();
    const saved = JSON.parse(JSON.stringify(first.record())) as IChatRecord;
    const second = new AgentSession({ tools: tools() });
    expect(second.restore(saved)).toBe(true);
    expect(second.getSnapshot().items).toEqual(first.getSnapshot().items);
    expect(second.history).toEqual(first.history);
    const model = new ScriptedModel([{ text: 'Still 42.' }]);
    await second.send('And again?', {
      model: () => model,
      notebook: new FakeNotebook()
    });
    const contents = model.requests[0].messages.map(m => m.content);
    expect(contents).toContain('It printed 42.');
    expect(contents.at(-1)).toBe('And again?');
  });

  it('gives the loop’s listeners the events of the items it applied, and the array its messages', async () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: 'system' },
      { role: 'user', content: 'Print 1.' }
    ];
    const events: AgentEvent[] = [];
    const store = new SessionStore();
    for (const message of messages) {
      store.apply({ type: 'message', message });
    }
    const model = () =>
      new ScriptedModel([
        { toolCalls: [{ name: 'run_code', arguments: { code: 'print(1)' } }] },
        { text: 'Printed 1.' }
      ]);
    const notebook = () =>
      new FakeNotebook({
        execute: () => [{ type: 'stream', name: 'stdout', text: '1\n' }]
      });
    // The same run, kept by a plain array and by the chat's record.
    await runAgent(runConfig({ model: model(), tools: tools() }), {
      notebook: notebook(),
      conversation: arrayConversation(messages),
      signal: new AbortController().signal,
      onEvent: event => events.push(event)
    });
    await runAgent(runConfig({ model: model(), tools: tools() }), {
      notebook: notebook(),
      conversation: store,
      signal: new AbortController().signal,
      onEvent: event => store.dispatch(event)
    });
    expect(store.history).toEqual(messages);
    expect(
      events
        .filter(event => event.type !== 'text-delta' && event.type !== 'usage')
        .map(event => event.type)
    ).toEqual(['tool-call', 'tool-result', 'end']);
    const [card] = store.getSnapshot().items;
    expect(card).toMatchObject({
      kind: 'tool',
      name: 'run_code',
      code: 'print(1)',
      toolKind: 'run',
      status: 'done'
    });
  });
});

/** A chat saved before the one record: its transcript and history apart. */
function oldChat(): IChatRecord {
  return {
    version: 1,
    id: 'old-chat',
    notebook: 'a.ipynb',
    title: 'Print 42.',
    created: 1,
    updated: 2,
    items: [
      { kind: 'user', id: 'item-1', text: 'Print 42.' },
      {
        kind: 'tool',
        id: 'call-1',
        name: 'insert_cell',
        title: 'Insert this cell',
        arguments: '{"source":"print(42)","run":true}',
        status: 'done',
        output: '42',
        cellId: 'c1'
      },
      { kind: 'assistant', id: 'item-2', text: 'It printed 42.' }
    ],
    history: [
      { role: 'system', content: 'system' },
      { role: 'user', content: 'Print 42.' },
      {
        role: 'assistant',
        content: null,
        toolCalls: [
          {
            id: 'call-1',
            name: 'insert_cell',
            arguments: '{"source":"print(42)","run":true}'
          }
        ]
      },
      { role: 'tool', toolCallId: 'call-1', content: '42' },
      { role: 'assistant', content: 'It printed 42.' }
    ],
    usage: { promptTokens: 10, completionTokens: 5 },
    plan: null,
    choice: null
  };
}

describe('a chat saved in the old format', () => {
  it('opens with its transcript and history, converted to one record, without the tools', () => {
    const old = oldChat();
    // A bare store: reopening needs no tool definition.
    const store = new SessionStore();
    expect(store.restore(old)).toBe(true);
    expect(store.history).toEqual(old.history);
    const items = store.getSnapshot().items;
    expect(items).toEqual([
      old.items![0],
      // The old card now says what it ran, as the old card read it.
      { ...old.items![1], code: 'print(42)', toolKind: 'run' },
      old.items![2]
    ]);
    expect(store.getSnapshot().interruptedRun).toBeNull();
    // Saved again, it is saved in the new format: once.
    const saved = store.record();
    expect(saved.version).toBe(2);
    expect(saved.items).toBeUndefined();
    expect(saved.history).toBeUndefined();
    expect(historyOf(saved.entries ?? [])).toEqual(old.history);
    expect(transcriptOf(saved.entries ?? [])).toEqual(items);
  });

  it('goes on: the next request holds its old history', async () => {
    const session = new AgentSession({ tools: tools() });
    expect(session.restore(oldChat())).toBe(true);
    const model = new ScriptedModel([{ text: 'Yes.' }]);
    await session.send('Still 42?', {
      model: () => model,
      notebook: new FakeNotebook()
    });
    const contents = model.requests[0].messages.map(m => m.content);
    expect(contents).toEqual([
      expect.any(String),
      'Print 42.',
      null,
      '42',
      'It printed 42.',
      'Still 42?'
    ]);
    expect(session.getSnapshot().items.map(item => item.kind)).toEqual([
      'user',
      'tool',
      'assistant',
      'user',
      'assistant'
    ]);
  });
});

describe('a chat saved by a newer version', () => {
  it('a newer chat’s entry of a kind this version does not know is left out, not a broken chat', () => {
    const store = new SessionStore();
    const record = {
      ...oldChat(),
      version: 3,
      items: undefined,
      history: undefined,
      entries: [
        { kind: 'message', message: { role: 'system', content: 'system' } },
        {
          kind: 'prompt',
          id: 'item-1',
          message: { role: 'user', content: 'Hi' },
          line: { kind: 'user', text: 'Hi' }
        },
        { kind: 'hologram', id: 'item-2' },
        { kind: 'call' }
      ]
    } as unknown as IChatRecord;
    expect(store.restore(record)).toBe(true);
    expect(store.getSnapshot().items).toEqual([
      { kind: 'user', id: 'item-1', text: 'Hi' }
    ]);
    expect(store.history.map(m => m.content)).toEqual(['system', 'Hi']);
  });
});
