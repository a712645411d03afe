/**
 * The eval harness end to end: a private Jupyter server and real kernels,
 * the real agent loop and `openai` client, and the scripted model server
 * standing in for the model. A scripted correct run scores 1, a scripted
 * wrong answer scores 0; the built-in set loads with its generated data.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  startScriptedServer,
  type IScriptedServer
} from '../../src/agent/__tests__/fixtures/scripted-server';
import { OpenAIChatClient } from '../../src/agent/model/openai-client';
import { loadTaskSet } from '../src/load';
import { buildReport, writeReport } from '../src/report';
import { runTaskSet } from '../src/runner';
import type { ITaskSet } from '../src/task';

let model: IScriptedServer;
let dir: string;

beforeAll(async () => {
  // @jupyterlab/services logs kernel status changes and expected 404s.
  jest.spyOn(console, 'debug').mockImplementation(() => undefined);
  jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  model = await startScriptedServer();
  dir = await mkdtemp(join(tmpdir(), 'eval-test-'));
  await writeFile(join(dir, 'data.csv'), 'a,b\n1,x\n2,y\n3,z\n');
});

afterAll(async () => {
  model?.stop();
  await rm(dir, { recursive: true, force: true });
});

/** The turns of a run that computes the sum in a cell and reports `answer`. */
function turns(answer: string): unknown[] {
  return [
    {
      tool_calls: [
        {
          name: 'insert_cell',
          arguments: {
            source:
              "import pandas as pd\ntotal = int(pd.read_csv('data.csv')['a'].sum())\nprint(total)"
          }
        }
      ]
    },
    {
      tool_calls: [{ name: 'run_cell', arguments: { cell_id: '{{cell_id}}' } }]
    },
    { content: `The cell printed the total.\n\nANSWER: ${answer}` }
  ];
}

/** The same run in one round trip: insert_cell with run: true. */
function oneTrip(answer: string): unknown[] {
  const [insert, , final] = turns(answer) as Array<{
    tool_calls?: Array<{ arguments: Record<string, unknown> }>;
  }>;
  insert.tool_calls![0].arguments.run = true;
  return [insert, final];
}

describe('the eval harness', () => {
  it('scores a correct run 1 and a wrong answer 0, with a real kernel', async () => {
    const task = (id: string) => ({
      id,
      prompt: 'What is the sum of column a in data.csv?',
      files: ['data.csv'],
      category: 'aggregation',
      checker: {
        type: 'all' as const,
        checks: [
          { type: 'answer' as const, expected: 6, tolerance: 0 },
          // Runs in the task's final kernel: the agent's cell really ran.
          { type: 'python' as const, code: 'assert total == 6' }
        ]
      }
    });
    const set: ITaskSet = {
      name: 'tiny',
      dataDir: dir,
      tasks: [task('right'), task('wrong'), task('guess'), task('one-trip')]
    };
    // One scripted server plays the runs in order (one task at a time);
    // the last answers without running any code.
    await model.script([
      ...turns('6'),
      ...turns('7'),
      { content: 'The sum of column a is 12.5.\n\nANSWER: 12.5' },
      ...oneTrip('6')
    ]);
    const results = await runTaskSet(set, {
      model: () =>
        new OpenAIChatClient({
          baseURL: `${model.root}/v1`,
          model: 'scripted-model',
          apiKey: 'unused'
        }),
      concurrency: 1,
      timeoutS: 60,
      notebooksDir: join(dir, 'notebooks')
    });

    const [right, wrong, guess, trip] = results;
    // The answer that ran no code and stated a number is recorded as such.
    expect(guess).toMatchObject({
      id: 'guess',
      success: false,
      toolCalls: 0,
      notComputed: ['12.5']
    });
    expect(right.notComputed).toEqual([]);
    expect(right).toMatchObject({
      id: 'right',
      success: true,
      end: 'completed',
      steps: 3,
      toolCalls: 2,
      toolSteps: 2,
      cellsRun: 1,
      promptTokens: 30,
      completionTokens: 15,
      tokensEstimated: false
    });
    expect(right.detail).toMatch(/answer 6 = expected 6; python check passed/);
    expect(wrong).toMatchObject({ id: 'wrong', success: false, steps: 3 });
    // One model call inserted, ran and observed the cell.
    expect(trip).toMatchObject({
      id: 'one-trip',
      success: true,
      steps: 2,
      toolSteps: 1,
      cellsRun: 1
    });
    expect(trip.detail).toMatch(/python check passed/);
    expect(wrong.detail).toMatch(/answer 7 ≠ expected 6/);
    // The executed notebook was kept, with the agent's cell and its output.
    const saved = JSON.parse(
      await readFile(join(dir, 'notebooks', 'right.ipynb'), 'utf8')
    ) as { cells: Array<{ outputs: Array<{ text?: string[] | string }> }> };
    expect(JSON.stringify(saved.cells[0].outputs)).toContain('6');

    const report = buildReport(
      {
        taskSet: 'tiny',
        model: 'scripted-model',
        baseUrl: model.root,
        protocol: 'native',
        concurrency: 1,
        timeoutS: 60,
        maxSteps: 20,
        startedAt: 'now',
        wallS: 1,
        price: null
      },
      results
    );
    // right, wrong: 2 calls for their cell; one-trip: 1; guess ran none.
    expect(report.summary).toMatchObject({
      tasks: 4,
      succeeded: 2,
      notComputed: 1,
      cellsRun: 3,
      callsPerCell: 5 / 3
    });
    const files = await writeReport(join(dir, 'out'), report);
    expect(await readFile(files.markdown, 'utf8')).toMatch(
      /Success: 2\/4 \(50\.0 %\)[\s\S]*not computed in the notebook: 1; model calls per executed cell: 1\.67 \(3 cells run\)[\s\S]*\| right \| ✅ \| completed \| 3 \| 1 \| 2\.00 \|[\s\S]*\| guess \| ❌ \| completed \| 1 \| 0 \| – \|.*\| 12\.5 \|[\s\S]*\| one-trip \| ✅ \| completed \| 2 \| 1 \| 1\.00 \|/
    );
  }, 120000);

  it('fails a python check when the kernel lacks what it asserts', async () => {
    await model.script([{ content: 'I did nothing.\n\nANSWER: 6' }]);
    const [result] = await runTaskSet(
      {
        name: 'lazy',
        dataDir: dir,
        tasks: [
          {
            id: 'lazy',
            prompt: 'Compute total.',
            checker: { type: 'python', code: 'assert total == 6' }
          }
        ]
      },
      {
        model: () =>
          new OpenAIChatClient({
            baseURL: `${model.root}/v1`,
            model: 'scripted-model'
          }),
        concurrency: 1,
        timeoutS: 60
      }
    );
    expect(result.success).toBe(false);
    expect(result.detail).toMatch(/NameError: name 'total' is not defined/);
  }, 60000);

  it.each([
    ['builtin', 30],
    ['holdout', 13]
  ])(
    'loads the %s set: ≥ %i tasks whose data and answers are generated',
    async (name, least) => {
      const set = await loadTaskSet(
        join(__dirname, '..', 'tasks', `${name}.json`),
        {
          dataDir: join(dir, name)
        }
      );
      expect(set.tasks.length).toBeGreaterThanOrEqual(least);
      const categories = new Set(set.tasks.map(t => t.category));
      for (const category of [
        'aggregation',
        'joins',
        'time series',
        'plots',
        'statistics',
        'cleaning',
        'error recovery'
      ]) {
        expect(categories).toContain(category);
      }
      const keys = (c: unknown): string[] => {
        const check = c as { expected_key?: string; checks?: unknown[] };
        return [
          ...(check.expected_key ? [check.expected_key] : []),
          ...(check.checks ?? []).flatMap(keys)
        ];
      };
      for (const task of set.tasks) {
        for (const key of keys(task.checker)) {
          expect(set.expected).toHaveProperty([key]);
        }
        for (const file of task.files ?? []) {
          expect(existsSync(join(set.dataDir!, file))).toBe(true);
        }
      }
    },
    30000
  );
});
