/**
 * How runs end: a cell still running after a soft timeout is not answered
 * over silently (the model is reminded once, and a run that still ends
 * with it names the cell), its card says "still running"; a chat saved
 * mid-run by a page that went away reopens with that run interrupted and
 * a conversation the next request can use.
 */
import { runAgent } from '../loop/run-agent';
import { arrayConversation } from '../loop/conversation';
import { runConfig } from '../loop/run-config';
import { AgentSession } from '../session';
import {
  INTERRUPTED_NOTICE,
  NOT_RUN_RELOADED,
  settleInterruptedRun
} from '../session/interrupted-run';
import { SessionStore } from '../session/store';
import { FakeNotebook } from '../testing/fake-notebook';
import { ScriptedModel, type ScriptedTurn } from '../testing/scripted-model';
import { agentTools } from '../tools/all-tools';
import { ToolRegistry } from '../tools/registry';
import type { AgentEvent, ChatMessage } from '../types';
import type { IChatRecord } from '../chat-record';

/** A kernel whose code runs until `finish()` is called (or it is interrupted). */
function slowNotebook() {
  const waiting: Array<() => void> = [];
  const notebook = new FakeNotebook({
    cells: [
      { id: 'long', type: 'code', source: 'import time\ntime.sleep(60)' }
    ],
    execute: (_source, signal) =>
      new Promise((resolve, reject) => {
        waiting.push(() =>
          resolve([{ type: 'stream', name: 'stdout', text: 'finished\n' }])
        );
        signal.addEventListener('abort', () =>
          reject(new Error('interrupted'))
        );
      })
  });
  return { notebook, finish: () => waiting.splice(0).forEach(f => f()) };
}

function run(turns: ScriptedTurn[], notebook: FakeNotebook) {
  const model = new ScriptedModel(turns);
  const events: AgentEvent[] = [];
  const messages: ChatMessage[] = [
    { role: 'system', content: 'system' },
    { role: 'user', content: 'run the long cell' }
  ];
  const outcome = runAgent(
    runConfig({
      model,
      tools: new ToolRegistry(agentTools()),
      approvalMode: 'run-everything',
      runSettings: {
        softTimeoutMs: 20,
        hardTimeoutMs: 60_000,
        allowDeleteAnyCell: false
      }
    }),
    {
      notebook,
      conversation: arrayConversation(messages),
      signal: new AbortController().signal,
      onEvent: event => events.push(event)
    }
  );
  return { model, events, messages, outcome };
}

const RUN_LONG = {
  toolCalls: [{ name: 'run_cell', arguments: { cell_id: 'long' } }]
};

describe('a cell still running when the model answers', () => {
  it('is reported as still running, and the model is asked to wait for it first', async () => {
    const { notebook, finish } = slowNotebook();
    const wait = {
      toolCalls: [{ name: 'wait', arguments: { cell_id: 'long', seconds: 5 } }]
    };
    const { model, events, outcome } = run(
      [
        RUN_LONG,
        { text: 'It printed nothing.' },
        wait,
        { text: 'It printed finished.' }
      ],
      notebook
    );
    // Let the cell finish once the model has been reminded.
    const timer = setInterval(() => {
      if (model.requests.length >= 3) {
        finish();
        clearInterval(timer);
      }
    }, 5);
    const result = await outcome;
    expect(result.reason).toBe('completed');
    expect(result.leftRunning).toBeUndefined();
    const first = events.find(e => e.type === 'tool-result');
    expect(first?.type === 'tool-result' && first.result.stillRunning).toBe(
      true
    );
    const reminder = model.requests[2].messages.at(-1);
    expect(reminder?.role).toBe('user');
    expect(reminder?.content).toContain('still running in the kernel');
    expect(reminder?.content).toContain('cell 1 (import time), cell_id long');
    expect(events.some(e => e.type === 'notice')).toBe(true);
    const end = events.at(-1);
    expect(end?.type === 'end' && end.leftRunning).toBeUndefined();
  });

  it('ends naming the cell when the model answers again over it (it left it running)', async () => {
    const { notebook, finish } = slowNotebook();
    const { model, events, outcome } = run(
      [
        RUN_LONG,
        { text: 'Started it.' },
        { text: 'It keeps training; check later.' }
      ],
      notebook
    );
    const result = await outcome;
    expect(model.requests).toHaveLength(3);
    expect(result.reason).toBe('completed');
    expect(result.leftRunning).toEqual([
      { id: 'long', label: 'cell 1 (import time)' }
    ]);
    const end = events.at(-1);
    expect(end?.type === 'end' && end.leftRunning?.[0].id).toBe('long');
    // Looking did not interrupt it.
    expect(notebook.interrupts).toBe(0);
    finish();
  });

  it('is not reminded about a cell that finished before the answer', async () => {
    const { notebook, finish } = slowNotebook();
    const { model, outcome } = run([RUN_LONG, { text: 'Done.' }], notebook);
    const timer = setInterval(() => {
      if (model.requests.length >= 2) {
        finish();
        clearInterval(timer);
      }
    }, 1);
    // The cell ends while the model gives its answer.
    const result = await outcome;
    expect(result.leftRunning).toBeUndefined();
    expect(model.requests).toHaveLength(2);
  });
});

describe('scratch code (run_code)', () => {
  it('is never left running: past the soft timeout it is interrupted, and the model is told to use a cell', async () => {
    const { notebook } = slowNotebook();
    const { events, outcome, model } = run(
      [
        {
          toolCalls: [
            {
              name: 'run_code',
              arguments: { code: 'import time\ntime.sleep(60)' }
            }
          ]
        },
        { text: 'It took too long.' }
      ],
      notebook
    );
    const result = await outcome;
    expect(result.reason).toBe('completed');
    expect(result.leftRunning).toBeUndefined();
    const tool = events.find(e => e.type === 'tool-result');
    expect(
      tool?.type === 'tool-result' && tool.result.stillRunning
    ).toBeFalsy();
    const observation = model.requests[1].messages.at(-1)?.content ?? '';
    expect(observation).toContain('The scratch code hit its time limit');
    expect(observation).toContain('put longer work in a cell');
    expect(observation).not.toContain('Call `wait`');
    // Nothing of it runs on: the fake kernel was interrupted.
    expect(notebook.kernelState()).not.toBe('busy');
  });
});

describe('the transcript of a run that leaves a cell running', () => {
  it('shows "still running" on the card and names the cell with Interrupt at the end', () => {
    // The transcript derived from the chat's record, as a run leaves it.
    const store = new SessionStore();
    store.apply({
      type: 'call',
      call: { id: 'c1', name: 'run_cell', arguments: '{"cell_id":"long"}' },
      card: {}
    });
    store.apply({
      type: 'result',
      callId: 'c1',
      result: {
        ok: true,
        output: 'still running',
        stillRunning: true,
        cellId: 'long'
      },
      durationMs: 30_200,
      message: { role: 'tool', toolCallId: 'c1', content: 'still running' }
    });
    store.apply({
      type: 'end',
      reason: 'completed',
      leftRunning: [{ id: 'long', label: 'cell 1 (import time)' }]
    });
    const state = store.getSnapshot();
    const [card, notice] = state.items;
    expect(card).toMatchObject({
      kind: 'tool',
      status: 'done',
      stillRunning: true
    });
    expect(notice).toMatchObject({
      kind: 'notice',
      runningCells: [{ id: 'long', label: 'cell 1 (import time)' }]
    });
    expect(notice.kind === 'notice' && notice.text).toContain(
      'Still running in the kernel: cell 1 (import time).'
    );
  });
});

/** A record saved while a run_cell call was in flight. */
function midRunRecord(): IChatRecord {
  return {
    version: 1,
    id: 'chat-1',
    notebook: 'a.ipynb',
    title: 'run it',
    created: 1,
    updated: 2,
    running: true,
    items: [
      { kind: 'user', id: 'item-1', text: 'run it' },
      {
        kind: 'tool',
        id: 'call-1',
        name: 'insert_cell',
        arguments: '{"source":"import time"}',
        status: 'done',
        cellId: 'c9'
      },
      {
        kind: 'tool',
        id: 'call-2',
        name: 'run_cell',
        arguments: '{"cell_id":"c9"}',
        status: 'running'
      }
    ],
    history: [
      { role: 'system', content: 'system' },
      { role: 'user', content: 'run it' },
      {
        role: 'assistant',
        content: null,
        toolCalls: [{ id: 'call-1', name: 'insert_cell', arguments: '{}' }]
      },
      { role: 'tool', toolCallId: 'call-1', content: 'Inserted c9' },
      {
        role: 'assistant',
        content: null,
        toolCalls: [{ id: 'call-2', name: 'run_cell', arguments: '{}' }]
      }
    ],
    usage: { promptTokens: 0, completionTokens: 0 },
    plan: null,
    choice: null
  };
}

describe('a chat saved mid-run by a page that went away', () => {
  it('reopens with the run interrupted, never running', () => {
    const store = new SessionStore();
    expect(store.restore(midRunRecord())).toBe(true);
    const state = store.getSnapshot();
    expect(state.status).toBe('idle');
    expect(state.items[2]).toMatchObject({ status: 'interrupted' });
    expect(state.items.at(-1)).toMatchObject({
      kind: 'notice',
      text: INTERRUPTED_NOTICE
    });
    expect(state.interruptedRun).toEqual({ cellIds: ['c9'] });
    // Every tool call has its answer: the next request is valid.
    expect(store.history.at(-1)).toEqual({
      role: 'tool',
      toolCallId: 'call-2',
      content: NOT_RUN_RELOADED
    });
  });

  it('is left as it was when its runs had ended', () => {
    const record = { ...midRunRecord(), running: false };
    record.items = record.items!.slice(0, 2);
    expect(settleInterruptedRun(record, () => 'x')).toBeNull();
    const store = new SessionStore();
    store.restore(record);
    expect(store.getSnapshot().interruptedRun).toBeNull();
    // Converted: the old card now says the code it carried (from its arguments).
    expect(store.getSnapshot().items).toEqual([
      record.items![0],
      { ...record.items![1], code: 'import time' }
    ]);
  });

  it('names no cell when the run had finished its cell before the reload', () => {
    const record = midRunRecord();
    record.items = [
      ...record.items!.slice(0, 2),
      {
        ...(record.items![2] as Extract<
          NonNullable<typeof record.items>[2],
          { kind: 'tool' }
        >),
        status: 'done',
        cellId: 'c9'
      }
    ];
    const settled = settleInterruptedRun(record, () => 'x');
    expect(settled?.cellIds).toEqual([]);
  });

  it('saves whether a run is in progress with the record', () => {
    const session = new AgentSession({ tools: new ToolRegistry(agentTools()) });
    expect(session.record().running).toBe(false);
  });
});
