/**
 * The walk from Send to the next model request, measured: the files on the
 * call chain at each moment of one `run_cell` round (Send, the first model
 * request, the cell's run, its observation, the next request), read from
 * the (async) stack traces. docs/architecture.md writes this walk out, with
 * the files outside the agent core (the prompt box, the sidebar's glue, the
 * live port and the kernel engine, the OpenAI client) that stand where the
 * fake notebook and the scripted model stand here. A hop added to the
 * chain fails this test: the walk is then to be shortened, or written anew.
 */
import * as path from 'path';
import * as observations from '../context/observations';
import type { IModelClient } from '../model/types';
import { AgentSession } from '../session';
import { FakeNotebook } from '../testing/fake-notebook';
import { ScriptedModel } from '../testing/scripted-model';
import { agentTools } from '../tools/all-tools';
import { ToolRegistry } from '../tools/registry';

/** This checkout's src/ folder, as stack frames name its files. */
const SRC = path.resolve(__dirname, '..', '..') + path.sep;

/** The files of src/ a stack passes through, outermost first (tests and stand-ins left out). */
function chainOf(stack: string): string[] {
  const files = [...stack.matchAll(/([^\s()]+\.tsx?):\d+:\d+/g)]
    .map(match => match[1])
    .filter(file => file.startsWith(SRC))
    .map(file => file.slice(SRC.length).split(path.sep).join('/'))
    .filter(file => !/__tests__|\/testing\//.test(file));
  return [...new Set(files.reverse())];
}

describe('the walk from Send to the next model request', () => {
  const limit = Error.stackTraceLimit;
  beforeAll(() => {
    Error.stackTraceLimit = Infinity;
  });
  afterAll(() => {
    Error.stackTraceLimit = limit;
  });

  it('crosses the files docs/architecture.md names, in order', async () => {
    const moments: Array<{ moment: string; chain: string[] }> = [];
    // `at`: the file of the function observed, whose own frame is the spy's.
    const record = (moment: string, at?: string) =>
      moments.push({
        moment,
        chain: [...chainOf(new Error().stack ?? ''), ...(at ? [at] : [])]
      });

    const notebook = new FakeNotebook({
      cells: [{ id: 'c1', source: 'print(6 * 7)' }],
      execute: () => [{ type: 'stream', name: 'stdout', text: '42\n' }]
    });
    const runCell = notebook.runCell.bind(notebook);
    notebook.runCell = (...args) => {
      record('the cell runs');
      return runCell(...args);
    };
    const formatRunResult = observations.formatRunResult;
    const format = jest
      .spyOn(observations, 'formatRunResult')
      .mockImplementation((...args) => {
        record('its observation', 'agent/context/observations.ts');
        return formatRunResult(...args);
      });
    const scripted = new ScriptedModel([
      { toolCalls: [{ name: 'run_cell', arguments: { cell_id: 'c1' } }] },
      { text: '6 * 7 is 42.' }
    ]);
    let requests = 0;
    const model: IModelClient = {
      model: scripted.model,
      streamChat: (request, signal) => {
        requests += 1;
        record(requests === 1 ? 'the model request' : 'the next request');
        return scripted.streamChat(request, signal);
      }
    };
    const session = new AgentSession({
      tools: new ToolRegistry(agentTools()),
      approvalMode: () => 'run-everything'
    });
    const run = session.send('What is 6 * 7?', {
      model: () => {
        record('Send');
        return model;
      },
      notebook
    });
    await run;
    format.mockRestore();

    // The round happened as the walk assumes.
    expect(requests).toBe(2);
    expect(session.history.at(-1)?.content).toBe('6 * 7 is 42.');
    expect(moments.map(m => m.moment)).toEqual([
      'Send',
      'the model request',
      'the cell runs',
      'its observation',
      'the next request'
    ]);
    const walk: string[] = [];
    for (const { chain } of moments) {
      for (const file of chain) {
        if (!walk.includes(file)) {
          walk.push(file);
        }
      }
    }
    expect(walk).toEqual([
      'agent/session/agent-session.ts',
      'agent/session/runner.ts',
      'agent/loop/run-agent.ts',
      'agent/loop/tool-step.ts',
      'agent/tools/kernel-tools.ts',
      'agent/context/observations.ts'
    ]);
  });
});
