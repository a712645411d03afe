import {
  needsApproval,
  type Approver,
  type IApprovalRequest
} from '../loop/approval';
import { isSummaryRequest } from '../context/summary';
import { runAgent } from '../loop/run-agent';
import { arrayConversation } from '../loop/conversation';
import { runConfig } from '../loop/run-config';
import { failureSignature, RepeatedSteps } from '../loop/stop-conditions';
import { FakeNotebook } from '../testing/fake-notebook';
import { ScriptedModel, type ScriptedTurn } from '../testing/scripted-model';
import { agentTools } from '../tools/all-tools';
import { ToolRegistry } from '../tools/registry';
import type { AgentEvent, ChatMessage } from '../types';

function run(
  turns: ScriptedTurn[],
  notebook: FakeNotebook,
  options: {
    approve?: Approver;
    mode?: 'run-everything' | 'ask-before-running' | 'ask-before-edits';
  } = {}
) {
  const model = new ScriptedModel(turns);
  const messages: ChatMessage[] = [{ role: 'user', content: 'go' }];
  const events: AgentEvent[] = [];
  const done = runAgent(
    runConfig({
      model,
      tools: new ToolRegistry(agentTools()),
      approvalMode: options.mode
    }),
    {
      notebook,
      conversation: arrayConversation(messages),
      signal: new AbortController().signal,
      onEvent: e => events.push(e),
      approve: options.approve
    }
  );
  return { done, model, messages, events };
}

const toolContents = (messages: ChatMessage[]) =>
  messages.filter(m => m.role === 'tool').map(m => m.content as string);

describe('approval policy', () => {
  it('asks before running code by default, shows the exact code, and never for reading', () => {
    expect(needsApproval('run', 'ask-before-running')).toBe(true);
    expect(needsApproval('edit', 'ask-before-running')).toBe(false);
    expect(needsApproval('read', 'ask-before-edits')).toBe(false);
    expect(needsApproval('edit', 'ask-before-edits')).toBe(true);
    expect(needsApproval('run', 'run-everything')).toBe(false);
    expect(needsApproval('restart', 'run-everything')).toBe(true);
  });

  it('runs an approved cell, and shows the user the cell’s code', async () => {
    const notebook = new FakeNotebook({
      execute: () => [{ type: 'stream', name: 'stdout', text: '4\n' }]
    });
    const requests: IApprovalRequest[] = [];
    const { done, messages } = run(
      [
        {
          toolCalls: [
            { name: 'insert_cell', arguments: { source: 'print(2+2)' } }
          ]
        },
        { toolCalls: [{ name: 'run_cell', arguments: { cell_id: 'cell-1' } }] },
        { text: '4' }
      ],
      notebook,
      { approve: async request => (requests.push(request), { approved: true }) }
    );
    await done;
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({
      title: 'Run this cell',
      code: 'print(2+2)',
      cellId: 'cell-1'
    });
    expect(toolContents(messages)[1]).toContain('4');
    expect(notebook.cells[0].executionCount).toBe(1);
  });

  it('a rejection with a reason goes back to the model and nothing runs', async () => {
    const notebook = new FakeNotebook({
      execute: () => [{ type: 'stream', name: 'stdout', text: 'ran\n' }]
    });
    const { done, messages, model } = run(
      [
        {
          toolCalls: [
            {
              name: 'run_code',
              arguments: { code: 'import os; os.remove("data.csv")' }
            }
          ]
        },
        { text: 'ok' }
      ],
      notebook,
      {
        approve: async () => ({
          approved: false,
          reason: 'never delete my data'
        })
      }
    );
    await done;
    const [observation] = toolContents(messages);
    expect(observation).toContain(
      'The user rejected this run_code call and said: "never delete my data"'
    );
    expect(toolContents(model.requests[1].messages as ChatMessage[])).toEqual([
      observation
    ]);
  });

  it('code the user edited is what runs (in the cell, for run_cell)', async () => {
    const ran: string[] = [];
    const notebook = new FakeNotebook({
      cells: [{ id: 'a', source: 'df.plot()' }],
      execute: source => (ran.push(source), [])
    });
    const { done, messages } = run(
      [
        { toolCalls: [{ name: 'run_cell', arguments: { cell_id: 'a' } }] },
        {
          toolCalls: [{ name: 'run_code', arguments: { code: 'df.head(100)' } }]
        },
        { text: 'done' }
      ],
      notebook,
      {
        approve: async request => ({
          approved: true,
          code:
            request.call.name === 'run_cell'
              ? 'df.plot(kind="bar")'
              : 'df.head(5)'
        })
      }
    );
    await done;
    expect(ran).toEqual(['df.plot(kind="bar")', 'df.head(5)']);
    expect(notebook.cells[0].source).toBe('df.plot(kind="bar")');
    expect(
      toolContents(messages).every(c => c.includes('The user edited the code'))
    ).toBe(true);
  });

  it('ask-before-edits asks before inserting; run-everything never asks except to restart', async () => {
    const asked: string[] = [];
    const approve: Approver = async request => (
      asked.push(request.call.name),
      { approved: true }
    );
    const edits = run(
      [
        {
          toolCalls: [{ name: 'insert_cell', arguments: { source: 'x = 1' } }]
        },
        { text: 'ok' }
      ],
      new FakeNotebook(),
      { approve, mode: 'ask-before-edits' }
    );
    await edits.done;
    expect(asked).toEqual(['insert_cell']);
    asked.length = 0;
    const everything = run(
      [
        {
          toolCalls: [
            { id: '1', name: 'run_code', arguments: { code: '1' } },
            { id: '2', name: 'restart_kernel', arguments: {} }
          ]
        },
        { text: 'ok' }
      ],
      new FakeNotebook(),
      { approve, mode: 'run-everything' }
    );
    await everything.done;
    expect(asked).toEqual(['restart_kernel']);
  });
});

describe('stop conditions', () => {
  it('the same error three times in a row ends the run with the error for the user', async () => {
    const notebook = new FakeNotebook({
      execute: () => [
        {
          type: 'error',
          ename: 'KeyError',
          evalue: "'price'",
          traceback: ["KeyError: 'price'"]
        }
      ]
    });
    const attempt = (i: number): ScriptedTurn => ({
      toolCalls: [
        {
          id: `i${i}`,
          name: 'insert_cell',
          arguments: { source: `df["price"] * ${i}` }
        },
        { id: `r${i}`, name: 'run_cell', arguments: { cell_id: `cell-${i}` } }
      ]
    });
    const { done, model, events } = run(
      [attempt(1), attempt(2), attempt(3), attempt(4)],
      notebook,
      {
        mode: 'run-everything'
      }
    );
    const outcome = await done;
    expect(outcome.reason).toBe('repeated-failure');
    expect(outcome.detail).toBe("KeyError: 'price'");
    expect(model.requests).toHaveLength(3);
    expect(events[events.length - 1]).toMatchObject({
      type: 'end',
      reason: 'repeated-failure'
    });
  });

  it('different errors do not trip the guard, and signatures ignore ids and counts', () => {
    expect(
      failureSignature(
        'cell_id: 1f2e3d4c-aaaa-bbbb-cccc-123456789abc ran (execution count 3)\nNameError: x'
      )
    ).toBe('NameError: x');
    expect(failureSignature('Error: there is no cell with id 12')).toBe(
      'Error: there is no cell with id <n>'
    );
  });

  it('groups all cell changes of a run into one undo step', async () => {
    const notebook = new FakeNotebook();
    const { done } = run(
      [
        { toolCalls: [{ name: 'insert_cell', arguments: { source: 'a' } }] },
        { toolCalls: [{ name: 'insert_cell', arguments: { source: 'b' } }] },
        { text: 'ok' }
      ],
      notebook
    );
    await done;
    expect(notebook.undoGroups).toEqual(['begin', 'end']);
    expect(notebook.cells).toHaveLength(2);
  });
});

describe('context budget', () => {
  it('elides older tool outputs when the history outgrows the window and no summary can be made, never the user or system messages', async () => {
    const big = 'x'.repeat(40000);
    const notebook = new FakeNotebook({
      execute: () => [{ type: 'stream', name: 'stdout', text: big }]
    });
    const model = new ScriptedModel([
      {
        toolCalls: [
          { id: 'a', name: 'run_code', arguments: { code: 'print(big)' } }
        ]
      },
      {
        toolCalls: [
          { id: 'b', name: 'read_file', arguments: { path: 'notes.txt' } }
        ]
      },
      // The summary of the older steps fails (context-summary.test.ts has the rest).
      { error: new Error('summary unavailable') },
      { text: 'done' }
    ]);
    notebook.files.set('notes.txt', 'y'.repeat(30000));
    const messages: ChatMessage[] = [
      { role: 'system', content: 'system prompt' },
      { role: 'user', content: 'please look' }
    ];
    await runAgent(
      runConfig({
        model,
        tools: new ToolRegistry(agentTools()),
        approvalMode: 'run-everything',
        contextTokens: 8600
      }),
      {
        notebook,
        conversation: arrayConversation(messages),
        signal: new AbortController().signal,
        onEvent: () => undefined
      }
    );
    expect(isSummaryRequest(model.requests[2])).toBe(true);
    const last = model.requests[3].messages;
    expect(last[0]).toEqual({ role: 'system', content: 'system prompt' });
    expect(last[1]).toEqual({ role: 'user', content: 'please look' });
    const tools = last
      .filter(m => m.role === 'tool')
      .map(m => m.content as string);
    expect(tools).toHaveLength(2);
    // The newest observation is intact; the older one was elided to fit.
    expect(tools[1]).toContain('y'.repeat(1000));
    expect(tools[0].length).toBeLessThan(1000);
    // The session's own history keeps everything.
    expect(
      (messages.filter(m => m.role === 'tool')[0].content as string).length
    ).toBeGreaterThan(3000);
    // Within the window, the request is the history unchanged.
    expect(model.requests[0].messages).toEqual([messages[0], messages[1]]);
  });
});

describe('a stream that fails midway', () => {
  it('keeps the partial answer in the history with the reason, and reports the error', async () => {
    const notebook = new FakeNotebook();
    const { done, messages } = run(
      [
        {
          chunks: [
            { choices: [{ index: 0, delta: { content: 'The mean is ' } }] },
            { choices: [{ index: 0, delta: { content: '5.8' } }] }
          ],
          thenError: Object.assign(new Error('502 upstream went away'), {
            status: 502
          })
        }
      ],
      notebook
    );
    const outcome = await done;
    expect(outcome.reason).toBe('error');
    expect(outcome.error?.kind).toBe('server');
    const last = messages[messages.length - 1];
    expect(last.role).toBe('assistant');
    expect(last.content).toMatch(
      /^The mean is 5\.8\n\n\[The model endpoint failed \(502\)/
    );
  });
});

describe('repeated steps (small models loop on the same code)', () => {
  const sameCode = (i: number): ScriptedTurn => ({
    toolCalls: [
      { id: `c${i}`, name: 'run_code', arguments: { code: 'df.head()' } }
    ]
  });

  it('runs a step once, refuses its first repeat with a reason, and stops at the second', async () => {
    const ran: string[] = [];
    const notebook = new FakeNotebook({
      execute: code => {
        ran.push(code);
        return [{ type: 'stream', name: 'stdout', text: 'a b\n1 2\n' }];
      }
    });
    const { done, model, messages, events } = run(
      [sameCode(1), sameCode(2), sameCode(3), { text: 'never asked' }],
      notebook,
      { mode: 'run-everything' }
    );
    const outcome = await done;
    expect(outcome.reason).toBe('repeated-step');
    expect(ran).toEqual(['df.head()']); // the repeats did not run
    expect(model.requests).toHaveLength(3);
    const tools = toolContents(messages);
    expect(tools[0]).toContain('1 2');
    // The refusal shows again what the step printed (small models do not
    // look back for it).
    const refusal =
      'Not run: this code already ran, and its output was:\n' +
      tools[0]
        .split('\n')
        .slice(1)
        .join('\n')
        .replace(/^Output:\n/, '')
        .trim() +
      '\nIf that answers the request, answer now with those values and no code; otherwise try something different.';
    expect(refusal).toContain('a b\n1 2');
    expect(tools[1]).toBe(refusal);
    expect(tools[2]).toBe(refusal);
    // The model saw why its second step did not run before it chose the third.
    const third = model.requests[2].messages;
    expect(third[third.length - 1]).toMatchObject({
      role: 'tool',
      toolCallId: 'c2',
      content: refusal
    });
    // The user sees the refused calls as failed tool cards, then why the run ended.
    const refused = events.filter(
      e => e.type === 'tool-result' && !e.result.ok
    );
    expect(refused).toHaveLength(2);
    expect(events[events.length - 1]).toMatchObject({
      type: 'end',
      reason: 'repeated-step'
    });
  });

  it('a different step in between, or a changed argument, runs again', async () => {
    const ran: string[] = [];
    const notebook = new FakeNotebook({
      execute: code => {
        ran.push(code);
        return [];
      }
    });
    const { done } = run(
      [
        sameCode(1),
        { toolCalls: [{ name: 'read_notebook', arguments: {} }] },
        sameCode(2),
        { toolCalls: [{ name: 'run_code', arguments: { code: 'df.tail()' } }] },
        sameCode(3),
        { text: 'done' }
      ],
      notebook,
      { mode: 'run-everything' }
    );
    expect((await done).reason).toBe('completed');
    expect(ran).toEqual(['df.head()', 'df.head()', 'df.tail()', 'df.head()']);
  });

  it('steps that only read may repeat (e.g. checking a cell again)', async () => {
    const notebook = new FakeNotebook({
      cells: [{ id: 'a', type: 'code', source: 'x = 1' }]
    });
    const wait = { name: 'read_cell', arguments: { cell_id: 'a' } };
    const { done, messages } = run(
      [
        { toolCalls: [wait] },
        { toolCalls: [wait] },
        { toolCalls: [wait] },
        { text: 'ok' }
      ],
      notebook,
      { mode: 'run-everything' }
    );
    expect((await done).reason).toBe('completed');
    expect(
      toolContents(messages).filter(text => text.startsWith('Not run:'))
    ).toEqual([]);
  });

  it('ignores key order and trailing whitespace when comparing steps', () => {
    const steps = new RepeatedSteps();
    const runs = () => true;
    expect(
      steps.record(
        [{ name: 'run_code', arguments: '{"code": "x\\n", "a": 1}' }],
        runs
      )
    ).toBe('run');
    expect(
      steps.record(
        [{ name: 'run_code', arguments: '{"a":1,"code":"x"}' }],
        runs
      )
    ).toBe('skip');
    expect(steps.record([{ name: 'run_code', arguments: 'x  ' }], runs)).toBe(
      'run'
    );
    expect(steps.record([{ name: 'run_code', arguments: 'x' }], runs)).toBe(
      'skip'
    );
    expect(steps.record([{ name: 'run_code', arguments: 'x' }], runs)).toBe(
      'stop'
    );
  });
});
