/**
 * One round trip per executed cell: `insert_cell` with `run: true` inserts,
 * runs (the watched run of `run_cell`: soft and hard timeouts, `wait`,
 * interrupt) and returns the outputs in one tool result, and asks as code
 * that runs, showing the code once.
 */
import type { IApprovalRequest } from '../loop/approval';
import { runAgent } from '../loop/run-agent';
import { arrayConversation } from '../loop/conversation';
import { runConfig } from '../loop/run-config';
import type { CellOutput } from '../ports';
import { FakeNotebook, type FakeExecutor } from '../testing/fake-notebook';
import { ScriptedModel, type ScriptedTurn } from '../testing/scripted-model';
import { agentTools } from '../tools/all-tools';
import { ToolRegistry } from '../tools/registry';
import { DEFAULT_RUN_SETTINGS, RunState } from '../tools/run-state';
import { smallModelTools } from '../tools/small-model-tools';
import { systemPrompt } from '../context/system-prompt';
import type { ChatMessage } from '../types';

const stdout = (text: string): CellOutput => ({
  type: 'stream',
  name: 'stdout',
  text
});
const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms));

function call(
  notebook: FakeNotebook,
  name: string,
  args: unknown,
  state = new RunState()
) {
  return new ToolRegistry(agentTools()).call(
    { id: 'c', name, arguments: JSON.stringify(args) },
    { notebook, signal: new AbortController().signal, state }
  );
}

describe('insert_cell with run: true', () => {
  it('inserts, runs and returns the outputs in one result', async () => {
    const notebook = new FakeNotebook({
      execute: source => [stdout(`ran ${source}\n`)]
    });
    const result = await call(notebook, 'insert_cell', {
      source: 'print(6)',
      run: true
    });
    expect(result.ok).toBe(true);
    expect(result.cellId).toBe(notebook.cells[0].id);
    expect(result.output).toMatch(
      /^Inserted code cell cell_id: \S+ at the end/
    );
    expect(result.output).toContain('ran print(6)');
    expect(notebook.cells[0].executionCount).toBe(1);
    expect(notebook.cells[0].outputs).toEqual([stdout('ran print(6)\n')]);
  });

  it('without run (or for markdown) only inserts', async () => {
    const ran: string[] = [];
    const notebook = new FakeNotebook({
      execute: source => (ran.push(source), [])
    });
    const plain = await call(notebook, 'insert_cell', { source: 'x = 1' });
    expect(plain.output).toContain('It has not run yet.');
    await call(notebook, 'insert_cell', {
      source: '# Title',
      cell_type: 'markdown',
      run: true
    });
    expect(ran).toEqual([]);
    expect(notebook.cells.map(c => c.executionCount)).toEqual([null, null]);
  });

  it('reports an error output as a failed call with the traceback', async () => {
    const notebook = new FakeNotebook({
      execute: () => [
        {
          type: 'error',
          ename: 'ZeroDivisionError',
          evalue: 'division by zero',
          traceback: ['ZeroDivisionError: division by zero']
        }
      ]
    });
    const result = await call(notebook, 'insert_cell', {
      source: '1/0',
      run: true
    });
    expect(result.ok).toBe(false);
    expect(result.output).toContain('ZeroDivisionError');
    expect(notebook.cells).toHaveLength(1);
  });

  it('a long run returns partial output at the soft timeout; wait picks it up', async () => {
    const slow: FakeExecutor = async (_source, signal) => {
      await sleep(150);
      if (signal.aborted) {
        throw new Error('interrupted');
      }
      return [stdout('finished\n')];
    };
    const notebook = new FakeNotebook({ execute: slow });
    const state = new RunState({ ...DEFAULT_RUN_SETTINGS, softTimeoutMs: 30 });
    const first = await call(
      notebook,
      'insert_cell',
      { source: 'slow()', run: true },
      state
    );
    const id = notebook.cells[0].id;
    expect(first.ok).toBe(true);
    expect(first.stillRunning).toBe(true);
    expect(state.running.has(id)).toBe(true);
    const done = await call(
      notebook,
      'wait',
      { cell_id: id, seconds: 5 },
      state
    );
    expect(done.output).toContain('finished');
    expect(state.running.has(id)).toBe(false);
  });

  it('a hard timeout interrupts the kernel', async () => {
    const endless: FakeExecutor = (_source, signal) =>
      new Promise((_resolve, reject) =>
        signal.addEventListener('abort', () => reject(new Error('stop')))
      );
    const notebook = new FakeNotebook({ execute: endless });
    const result = await call(
      notebook,
      'insert_cell',
      { source: 'while True: pass', run: true },
      new RunState({
        ...DEFAULT_RUN_SETTINGS,
        softTimeoutMs: 5000,
        hardTimeoutMs: 40
      })
    );
    expect(result.ok).toBe(false);
    expect(notebook.interrupts).toBeGreaterThan(0);
    expect(result.preview).toMatch(/^timeout/);
  });
});

function run(turns: ScriptedTurn[], notebook: FakeNotebook) {
  const requests: IApprovalRequest[] = [];
  const messages: ChatMessage[] = [{ role: 'user', content: 'go' }];
  const done = runAgent(
    runConfig({
      model: new ScriptedModel(turns),
      tools: new ToolRegistry(agentTools()),
      approvalMode: 'ask-before-running'
    }),
    {
      notebook,
      conversation: arrayConversation(messages),
      signal: new AbortController().signal,
      onEvent: () => undefined,
      approve: async request => (requests.push(request), { approved: true })
    }
  );
  return { done, requests, messages };
}

describe('approval of insert_cell', () => {
  it('with run: true asks once, "Insert and run this cell", showing the code once', async () => {
    const notebook = new FakeNotebook({ execute: () => [stdout('4\n')] });
    const { done, requests, messages } = run(
      [
        {
          toolCalls: [
            {
              name: 'insert_cell',
              arguments: { source: 'print(2+2)', run: true }
            }
          ]
        },
        { text: 'It printed 4.' }
      ],
      notebook
    );
    const outcome = await done;
    expect(outcome.steps).toBe(2);
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({
      kind: 'run',
      title: 'Insert and run this cell',
      code: 'print(2+2)'
    });
    expect(requests[0].details).toBeUndefined();
    const tool = messages.find(m => m.role === 'tool');
    expect(tool?.content).toContain('4');
  });

  it('the code the user edited is what is inserted and run', async () => {
    const notebook = new FakeNotebook({
      execute: source => [stdout(`ran ${source}\n`)]
    });
    const done = runAgent(
      runConfig({
        model: new ScriptedModel([
          {
            toolCalls: [
              { name: 'insert_cell', arguments: { source: 'rm()', run: true } }
            ]
          },
          { text: 'done' }
        ]),
        tools: new ToolRegistry(agentTools())
      }),
      {
        notebook,
        conversation: arrayConversation([{ role: 'user', content: 'go' }]),
        signal: new AbortController().signal,
        onEvent: () => undefined,
        approve: async () => ({ approved: true, code: 'print(1)' })
      }
    );
    await done;
    expect(notebook.cells[0].source).toBe('print(1)');
    expect(notebook.cells[0].outputs).toEqual([stdout('ran print(1)\n')]);
  });

  it('without run it is an edit: not asked in the default mode', async () => {
    const notebook = new FakeNotebook();
    const { done, requests } = run(
      [
        {
          toolCalls: [{ name: 'insert_cell', arguments: { source: 'x = 1' } }]
        },
        { text: 'done' }
      ],
      notebook
    );
    await done;
    expect(requests).toHaveLength(0);
    expect(notebook.cells).toHaveLength(1);
  });

  it('a rejected insert-and-run inserts nothing', async () => {
    const notebook = new FakeNotebook({ execute: () => [stdout('x\n')] });
    await runAgent(
      runConfig({
        model: new ScriptedModel([
          {
            toolCalls: [
              { name: 'insert_cell', arguments: { source: 'x', run: true } }
            ]
          },
          { text: 'ok' }
        ]),
        tools: new ToolRegistry(agentTools())
      }),
      {
        notebook,
        conversation: arrayConversation([{ role: 'user', content: 'go' }]),
        signal: new AbortController().signal,
        onEvent: () => undefined,
        approve: async () => ({ approved: false, reason: 'no' })
      }
    );
    expect(notebook.cells).toHaveLength(0);
  });
});

describe('the prompts prefer one round trip', () => {
  it('the system prompt asks for insert_cell with run: true', () => {
    expect(systemPrompt({ notebookPath: 'a.ipynb' })).toContain(
      'insert_cell with run: true'
    );
  });

  it('small models see run in insert_cell’s one sentence and schema', () => {
    const insert = smallModelTools().find(t => t.name === 'insert_cell')!;
    expect(insert.description).toMatch(/run: true/);
    expect(
      (insert.parameters as { properties: Record<string, unknown> }).properties
    ).toHaveProperty('run');
  });

  it('an insert_cell that runs counts as code that ran (no "not computed" mark)', () => {
    const tools = new ToolRegistry(agentTools());
    expect(
      tools.runsCode({
        name: 'insert_cell',
        arguments: '{"source":"1","run":true}'
      })
    ).toBe(true);
    expect(
      tools.runsCode({ name: 'insert_cell', arguments: '{"source":"1"}' })
    ).toBe(false);
    expect(tools.kindOf({ name: 'insert_cell', arguments: '{oops' })).toBe(
      'run'
    );
  });
});
