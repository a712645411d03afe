/**
 * Model calls per executed cell, on the built-in eval set with the
 * scripted model (tests/scripted_model_server.py over real SSE, the real
 * `openai` client, runAgent, ServerNotebookPort on a private Jupyter server,
 * a real kernel per task: the eval harness, eval/src/runner.ts).
 *
 * Every task is played twice by the same scripted work, two cells a task
 * (read the task's first file; count its lines) and an answer:
 * - `insert + run_cell`: each cell costs two model calls, an insert_cell and
 *   then a run_cell (the only way before insert_cell took `run`);
 * - `insert_cell run: true`: each cell is inserted, run and observed in one
 *   call.
 * The harness counts the model calls that asked for tools and the cells
 * that ran (eval/src/report.ts: `callsPerCell`). The figures measure the
 * round trips the toolset needs, not a model's choice: a real model's
 * figure is in the eval table of its own run.
 * Target: 1 model call per executed cell.
 *
 * Run: npx tsx bench/round-trips.ts [--limit N]   (default: all 35 tasks)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import { freePort } from '../src/agent/__tests__/fixtures/scripted-server';
import { OpenAIChatClient } from '../src/agent/model/openai-client';
import { loadTaskSet } from '../eval/src/load';
import { buildReport, perCell } from '../eval/src/report';
import { runTaskSet } from '../eval/src/runner';
import type { ITask } from '../eval/src/task';
import { ScriptedModelServer } from './lib/lab-server';
import { fixed, print, runMain, target } from './lib/report';

// @jupyterlab/services logs every kernel status change at debug level.
console.debug = () => undefined;

type Mode = 'two-calls' | 'one-call';

/** The two cells of a task: read its first file, count its lines. */
function cells(task: ITask): string[] {
  const file = task.files?.length ? basename(task.files[0]) : null;
  return [
    file
      ? `rows = open(${JSON.stringify(file)}, encoding='latin-1').read().splitlines()\nprint(rows[:2])`
      : 'rows = []\nprint("no file")',
    'print(len(rows))'
  ];
}

/** The scripted turns of one task in `mode`. */
function turns(task: ITask, mode: Mode): unknown[] {
  const out: unknown[] = [];
  for (const source of cells(task)) {
    if (mode === 'one-call') {
      out.push({
        tool_calls: [{ name: 'insert_cell', arguments: { source, run: true } }]
      });
    } else {
      out.push(
        { tool_calls: [{ name: 'insert_cell', arguments: { source } }] },
        {
          tool_calls: [
            { name: 'run_cell', arguments: { cell_id: '{{cell_id}}' } }
          ]
        }
      );
    }
  }
  out.push({ content: 'The cells printed the file and its length.' });
  return out;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { limit: { type: 'string' } } });
  const dataDir = await mkdtemp(join(tmpdir(), 'round-trips-'));
  const model = await ScriptedModelServer.start(await freePort());
  try {
    const set = await loadTaskSet(
      join(__dirname, '..', 'eval', 'tasks', 'builtin.json'),
      { dataDir }
    );
    if (values.limit) {
      set.tasks = set.tasks.slice(0, Number(values.limit));
    }
    print(
      `built-in eval set: ${set.tasks.length} tasks, 2 scripted cells each, one task at a time`
    );
    const figures = new Map<Mode, number | null>();
    for (const mode of ['two-calls', 'one-call'] as const) {
      await model.script(set.tasks.flatMap(task => turns(task, mode)));
      const started = Date.now();
      const results = await runTaskSet(set, {
        model: () =>
          new OpenAIChatClient({
            baseURL: `${model.root}/v1`,
            model: 'scripted-model',
            apiKey: 'unused'
          }),
        concurrency: 1,
        timeoutS: 120
      });
      const failed = results.filter(r => r.error || r.end !== 'completed');
      if (failed.length) {
        throw new Error(
          `${mode}: ${failed.length} tasks did not complete: ` +
            failed.map(r => `${r.id} (${r.end}: ${r.detail})`).join('; ')
        );
      }
      const { summary } = buildReport(
        {
          taskSet: set.name,
          model: 'scripted-model',
          baseUrl: model.root,
          protocol: 'native',
          concurrency: 1,
          timeoutS: 120,
          maxSteps: 20,
          startedAt: new Date(started).toISOString(),
          wallS: (Date.now() - started) / 1000,
          price: null
        },
        results
      );
      figures.set(mode, summary.callsPerCell);
      const label =
        mode === 'one-call' ? 'insert_cell run: true' : 'insert + run_cell';
      print(
        `${label.padEnd(22)} ${summary.cellsRun} cells run, ` +
          `${results.reduce((n, r) => n + r.toolSteps, 0)} tool calls of the model, ` +
          `${perCell(summary.callsPerCell)} model calls per executed cell ` +
          `(${fixed((Date.now() - started) / 1000, 0)} s)`
      );
    }
    const before = figures.get('two-calls') ?? NaN;
    const after = figures.get('one-call') ?? NaN;
    print(`ratio: ${fixed(after / before)}× the model calls per executed cell`);
    target('model calls per executed cell', after, 1, 'at-most');
  } finally {
    await model.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

runMain(main);
