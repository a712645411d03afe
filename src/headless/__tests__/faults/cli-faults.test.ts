/**
 * Faults on the command line, where nobody can answer a question: a model
 * that asks to restart the kernel (an approval nobody answers hung the run)
 * and a notebook file that someone changes on disk while `generate` works
 * (the final save must not overwrite it: the agent's notebook goes to a
 * copy, and the exit code and message say so).
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  startScriptedServer,
  type IScriptedServer
} from '../../../agent/__tests__/fixtures/scripted-server';
import { main } from '../../cli/cli';
import type { ICliIO } from '../../cli/cli-io';
import { FaultSummary } from './fault-summary';

jest.setTimeout(90000);

const summary = new FaultSummary('command line faults');
let model: IScriptedServer;

beforeAll(async () => {
  jest.spyOn(console, 'debug').mockImplementation(() => undefined);
  jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  model = await startScriptedServer();
});

afterAll(() => {
  summary.print();
  model?.stop();
});

function io(cwd: string): ICliIO & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return {
    stdout,
    stderr,
    out: line => stdout.push(line),
    err: line => stderr.push(line),
    env: { NOTEBOOK_AGENT_MODEL: 'scripted', OPENAI_API_KEY: 'k' },
    cwd
  };
}

interface INotebookJson {
  cells: Array<{ id: string; cell_type: string; source: string | string[] }>;
}

const source = (value: string | string[]) =>
  Array.isArray(value) ? value.join('') : value;

it('generate: a restart request does not hang, and a file changed on disk is kept', async () => {
  await summary.run(
    'restart approval + file changed on disk',
    async findings => {
      const cwd = await mkdtemp(join(tmpdir(), 'cli-faults-'));
      await model.script([
        { tool_calls: [{ name: 'restart_kernel', arguments: {} }] },
        {
          tool_calls: [
            { name: 'insert_cell', arguments: { source: "print('agent')" } }
          ]
        },
        {
          tool_calls: [
            { name: 'run_cell', arguments: { cell_id: '{{cell_id}}' } }
          ]
        },
        { content: 'It printed agent.' }
      ]);
      const users = {
        cells: [
          {
            id: 'users-own',
            cell_type: 'markdown',
            metadata: {},
            source: 'Written by the user while the agent worked.'
          }
        ],
        metadata: {},
        nbformat: 4,
        nbformat_minor: 5
      };
      const run = io(cwd);
      const started = Date.now();
      const exit = main(
        [
          'generate',
          'Print agent',
          '--out',
          'out.ipynb',
          '--base-url',
          `${model.root}/v1`
        ],
        run
      );
      // Once the agent inserted its cell, the user saves the file elsewhere.
      for (;;) {
        if ((await model.received()).length >= 3) {
          break;
        }
        if (Date.now() - started > 60000) {
          throw new Error('the run did not get going');
        }
        await new Promise(resolve => setTimeout(resolve, 100));
      }
      await writeFile(join(cwd, 'out.ipynb'), JSON.stringify(users));
      const code = await exit;
      const onDisk = JSON.parse(
        await readFile(join(cwd, 'out.ipynb'), 'utf8')
      ) as INotebookJson;
      findings.cellsLost =
        onDisk.cells.length === 1 &&
        source(onDisk.cells[0].source) === users.cells[0].source
          ? 0
          : 1;
      expect(Date.now() - started).toBeLessThan(60000);
      const restart = (
        await model.received<{
          body: { messages: Array<{ role: string; content: string }> };
        }>()
      )[1].body.messages.find(m => m.role === 'tool');
      expect(restart?.content).toMatch(/restart/i);
      expect(code).toBe(1);
      expect(run.stderr.join('\n')).toContain(
        'out.ipynb changed on disk while the agent worked, so it was left as it is; ' +
          "the agent's notebook was saved as out.agent.ipynb."
      );
      expect(findings.cellsLost).toBe(0);
      const copy = JSON.parse(
        await readFile(join(cwd, 'out.agent.ipynb'), 'utf8')
      ) as INotebookJson;
      expect(copy.cells.map(c => source(c.source))).toContain("print('agent')");
    }
  );
});
