import { runAgent } from '../loop/run-agent';
import { arrayConversation } from '../loop/conversation';
import { runConfig, type RunConfig } from '../loop/run-config';
import { FakeNotebook } from '../testing/fake-notebook';
import { ScriptedModel, type ScriptedTurn } from '../testing/scripted-model';
import { agentTools } from '../tools/all-tools';
import { ToolRegistry } from '../tools/registry';
import type { AgentEvent, ChatMessage } from '../types';

/** A tiny "kernel": evaluates `print(<int expr>)` with the variables it was given. */
function arithmeticKernel(vars: Record<string, number>) {
  return (source: string) => {
    const match = /^print\((.*)\)$/.exec(source.trim());
    if (!match) {
      return [
        {
          type: 'error' as const,
          ename: 'SyntaxError',
          evalue: 'invalid syntax',
          traceback: []
        }
      ];
    }
    const value = Function(
      ...Object.keys(vars),
      `return (${match[1]});`
    )(...Object.values(vars));
    return [
      { type: 'stream' as const, name: 'stdout' as const, text: `${value}\n` }
    ];
  };
}

function setup(
  turns: ScriptedTurn[],
  notebook = new FakeNotebook(),
  extra: Partial<RunConfig> = {}
) {
  const model = new ScriptedModel(turns);
  const events: AgentEvent[] = [];
  const messages: ChatMessage[] = [
    { role: 'system', content: 'system' },
    { role: 'user', content: 'do it' }
  ];
  const controller = new AbortController();
  const run = () =>
    runAgent(
      runConfig({ model, tools: new ToolRegistry(agentTools()), ...extra }),
      {
        notebook,
        conversation: arrayConversation(messages),
        signal: controller.signal,
        onEvent: e => events.push(e)
      }
    );
  return { model, events, messages, controller, notebook, run };
}

const toolMessages = (messages: ChatMessage[]) =>
  messages.filter(
    (m): m is Extract<ChatMessage, { role: 'tool' }> => m.role === 'tool'
  );

describe('runAgent', () => {
  it('reads, inserts, runs and answers with the observed value over several steps', async () => {
    const notebook = new FakeNotebook({
      cells: [{ id: 'user-1', source: 'secret = 6', executionCount: 1 }],
      execute: arithmeticKernel({ secret: 6 })
    });
    const { run, model, messages, events } = setup(
      [
        { toolCalls: [{ name: 'read_notebook', arguments: {} }] },
        {
          toolCalls: [
            {
              name: 'insert_cell',
              arguments: {
                source: 'print(secret * 7)',
                after_cell_id: 'user-1'
              }
            }
          ]
        },
        { toolCalls: [{ name: 'run_cell', arguments: { cell_id: 'cell-1' } }] },
        { text: 'The answer is 42.' }
      ],
      notebook
    );
    const outcome = await run();
    expect(outcome).toEqual({
      reason: 'completed',
      steps: 4,
      answer: 'The answer is 42.'
    });
    expect(notebook.cells.map(c => c.source)).toEqual([
      'secret = 6',
      'print(secret * 7)'
    ]);
    expect(notebook.cells[1].executionCount).toBe(1);
    // Each request carries the previous observations; the last one the kernel's output.
    expect(model.requests).toHaveLength(4);
    const lastRequestTools = toolMessages(model.requests[3].messages);
    expect(lastRequestTools.map(m => m.content)[0]).toContain(
      'cell_id: user-1'
    );
    expect(lastRequestTools[2].content).toContain('42');
    expect(model.requests[0].tools.map(t => t.name)).toEqual(
      expect.arrayContaining(['read_notebook', 'insert_cell', 'run_cell'])
    );
    expect(messages[messages.length - 1]).toEqual({
      role: 'assistant',
      content: 'The answer is 42.'
    });
    expect(events.filter(e => e.type === 'tool-result')).toHaveLength(3);
    expect(events[events.length - 1]).toEqual({
      type: 'end',
      reason: 'completed',
      error: undefined
    });
  });

  it('runs several tool calls of one turn in order, each answered by a tool message', async () => {
    const notebook = new FakeNotebook({ execute: arithmeticKernel({}) });
    const { run, messages } = setup(
      [
        {
          toolCalls: [
            {
              id: 'x1',
              name: 'insert_cell',
              arguments: { source: 'print(1+1)' }
            },
            { id: 'x2', name: 'run_cell', arguments: { cell_id: 'cell-1' } }
          ]
        },
        { text: 'done' }
      ],
      notebook
    );
    await run();
    const tools = toolMessages(messages);
    expect(tools.map(t => t.toolCallId)).toEqual(['x1', 'x2']);
    expect(tools[1].content).toContain('2');
  });

  it('turns a tool error into an observation and lets the model recover', async () => {
    const notebook = new FakeNotebook({ execute: arithmeticKernel({}) });
    const { run, model } = setup(
      [
        { toolCalls: [{ name: 'run_cell', arguments: { cell_id: 'nope' } }] },
        {
          toolCalls: [{ name: 'insert_cell', arguments: { source: 'oops(' } }]
        },
        { toolCalls: [{ name: 'run_cell', arguments: { cell_id: 'cell-1' } }] },
        { text: 'The code failed; here is why.' }
      ],
      notebook
    );
    const outcome = await run();
    expect(outcome.reason).toBe('completed');
    const observations = toolMessages(model.requests[3].messages).map(
      m => m.content
    );
    expect(observations[0]).toMatch(
      /run_cell failed: There is no cell with id nope/
    );
    expect(observations[2]).toContain('raised an error');
    expect(observations[2]).toContain('SyntaxError: invalid syntax');
  });

  it('answers unknown tools with the list of valid ones', async () => {
    const { run, model } = setup([
      { toolCalls: [{ name: 'delete_everything', arguments: {} }] },
      { text: 'ok' }
    ]);
    await run();
    const [observation] = toolMessages(model.requests[1].messages);
    expect(observation.content).toBe(
      'Error: there is no tool named "delete_everything". Available tools: ' +
        new ToolRegistry(agentTools()).specs.map(t => t.name).join(', ') +
        '.'
    );
  });

  it('answers malformed JSON and schema violations precisely, without acting', async () => {
    const notebook = new FakeNotebook();
    const { run, model } = setup(
      [
        {
          toolCalls: [
            { name: 'insert_cell', arguments: '{"source": "print(1)"' }
          ]
        },
        {
          toolCalls: [{ name: 'insert_cell', arguments: { code: 'print(1)' } }]
        },
        {
          toolCalls: [
            {
              name: 'insert_cell',
              arguments: { source: 'x', cell_type: 'latex' }
            }
          ]
        },
        { text: 'giving up' }
      ],
      notebook
    );
    await run();
    const observations = toolMessages(model.requests[3].messages).map(
      m => m.content
    );
    expect(observations[0]).toMatch(
      /^Error: the arguments of insert_cell are not valid JSON/
    );
    expect(observations[1]).toMatch(/must have required property 'source'/);
    expect(observations[2]).toMatch(
      /\/cell_type must be equal to one of the allowed values/
    );
    expect(notebook.cells).toHaveLength(0);
  });

  it('stops at the step limit', async () => {
    const turns: ScriptedTurn[] = Array.from({ length: 10 }, () => ({
      toolCalls: [{ name: 'read_notebook', arguments: {} }]
    }));
    const { run, model, events } = setup(turns, new FakeNotebook(), {
      maxSteps: 3
    });
    const outcome = await run();
    expect(outcome).toEqual({ reason: 'step-limit', steps: 3 });
    expect(model.requests).toHaveLength(3);
    expect(events[events.length - 1]).toMatchObject({
      type: 'end',
      reason: 'step-limit'
    });
  });

  it('stops mid-stream when aborted and keeps the partial answer', async () => {
    const { run, model, controller, messages } = setup([
      { text: 'Working on a long answer' }
    ]);
    model.onChunk = index => {
      if (index === 3) {
        controller.abort();
      }
    };
    const outcome = await run();
    expect(outcome.reason).toBe('stopped');
    const last = messages[messages.length - 1];
    expect(last.role).toBe('assistant');
    expect(last.content).toMatch(/\[stopped by the user\]$/);
  });

  it('interrupts a running cell when stopped and answers every pending call', async () => {
    let release: () => void = () => undefined;
    const notebook = new FakeNotebook({
      execute: (_source, signal) =>
        new Promise((_resolve, reject) => {
          release = () => reject(new Error('interrupted'));
          signal?.addEventListener('abort', () => release());
        })
    });
    const { run, controller, messages } = setup(
      [
        {
          toolCalls: [
            {
              id: 'a',
              name: 'insert_cell',
              arguments: { source: 'while True: pass' }
            },
            { id: 'b', name: 'run_cell', arguments: { cell_id: 'cell-1' } },
            { id: 'c', name: 'read_notebook', arguments: {} }
          ]
        },
        { text: 'never requested' }
      ],
      notebook
    );
    const done = run();
    await new Promise(resolve => setTimeout(resolve, 20));
    controller.abort();
    const outcome = await done;
    expect(outcome.reason).toBe('stopped');
    expect(notebook.interrupts).toBe(1);
    const tools = toolMessages(messages);
    expect(tools.map(t => t.toolCallId)).toEqual(['a', 'b', 'c']);
    expect(tools[1].content).toContain('interrupted');
    expect(tools[2].content).toBe('Not run: the user stopped the agent.');
  });

  it('reports model errors with what to do, and stops', async () => {
    const unauthorized = Object.assign(
      new Error('401 Incorrect API key provided'),
      {
        status: 401,
        error: {
          message: 'Incorrect API key provided',
          type: 'invalid_request_error'
        }
      }
    );
    const { run, events } = setup([{ error: unauthorized }]);
    const outcome = await run();
    expect(outcome.reason).toBe('error');
    expect(outcome.error?.kind).toBe('auth');
    expect(outcome.error?.message).toContain('401');
    expect(outcome.error?.hint).toContain('OPENAI_API_KEY');
    expect(events[events.length - 1]).toMatchObject({
      type: 'end',
      reason: 'error'
    });
  });
});
