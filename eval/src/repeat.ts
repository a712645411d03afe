/**
 * Several runs of one task set, summarised per task by the median: a task
 * succeeds when it succeeded in more than half of the runs; its time, cells
 * and calls are the medians of its runs. Real models are not deterministic:
 * one run's score moves by a few tasks (eval/README.md, real models).
 */
import type { ITaskResult } from './runner';

/** One task over the runs. */
export interface IRepeatedTask {
  id: string;
  category?: string;
  passes: number;
  runs: number;
  success: boolean;
  wallS: number;
  cellsRun: number;
  toolSteps: number;
  /** How each run ended (completed, step-limit, timeout, …). */
  ends: string[];
  /** The last run's checker explanation. */
  detail: string;
}

/** The runs, summarised. */
export interface IRepeatSummary {
  runs: number;
  tasks: IRepeatedTask[];
  succeeded: number;
  successRate: number;
  byCategory: Record<string, { tasks: number; succeeded: number }>;
  /** Median over tasks of each task's median wall time. */
  medianWallS: number;
  /** Model calls that asked for tools per executed cell, over all runs. */
  callsPerCell: number | null;
  /** Median of the first request's prompt tokens, over all tasks and runs. */
  firstPromptTokens: number | null;
  /** Median time to the first request's first token, in ms. */
  firstTokenMs: number | null;
  /** Each run's score. */
  perRun: number[];
}

/** The median of `values` (null for none). */
export function median(values: ReadonlyArray<number>): number | null {
  if (!values.length) {
    return null;
  }
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Summarise `runs` (each the results of one run of the same set, in the set's order). */
export function summariseRuns(
  runs: ReadonlyArray<ReadonlyArray<ITaskResult>>
): IRepeatSummary {
  const first = runs[0] ?? [];
  const tasks = first.map((task, index) => {
    const all = runs.map(run => run[index]).filter(Boolean);
    const passes = all.filter(r => r.success).length;
    return {
      id: task.id,
      category: task.category,
      passes,
      runs: all.length,
      success: passes * 2 > all.length,
      wallS: median(all.map(r => r.wallS)) ?? 0,
      cellsRun: median(all.map(r => r.cellsRun)) ?? 0,
      toolSteps: median(all.map(r => r.toolSteps)) ?? 0,
      ends: all.map(r => r.end),
      detail: all[all.length - 1]?.detail ?? ''
    };
  });
  const byCategory: Record<string, { tasks: number; succeeded: number }> = {};
  for (const task of tasks) {
    const key = task.category ?? 'other';
    byCategory[key] ??= { tasks: 0, succeeded: 0 };
    byCategory[key].tasks += 1;
    byCategory[key].succeeded += task.success ? 1 : 0;
  }
  const results = runs.flat();
  const cells = results.reduce((n, r) => n + r.cellsRun, 0);
  const numbers = (pick: (r: ITaskResult) => number | null | undefined) =>
    results.map(pick).filter((v): v is number => typeof v === 'number');
  const succeeded = tasks.filter(t => t.success).length;
  return {
    runs: runs.length,
    tasks,
    succeeded,
    successRate: tasks.length ? succeeded / tasks.length : 0,
    byCategory,
    medianWallS: median(tasks.map(t => t.wallS)) ?? 0,
    callsPerCell: cells
      ? results.reduce((n, r) => n + r.toolSteps, 0) / cells
      : null,
    firstPromptTokens: median(numbers(r => r.firstPromptTokens)),
    firstTokenMs: median(numbers(r => r.firstTokenMs)),
    perRun: runs.map(run => run.filter(r => r.success).length)
  };
}

const percent = (part: number, whole: number) =>
  whole ? `${((100 * part) / whole).toFixed(0)} %` : '–';

/** The summary as markdown, under a line saying what ran. */
export function repeatMarkdown(title: string, summary: IRepeatSummary): string {
  const s = summary;
  return [
    `# ${title}`,
    '',
    `**Success (median of ${s.runs} run${s.runs > 1 ? 's' : ''} per task): ${s.succeeded}/${s.tasks.length} ` +
      `(${percent(s.succeeded, s.tasks.length)})**; per run: ${s.perRun.join(', ')}; ` +
      `median time per task ${s.medianWallS.toFixed(1)} s; ` +
      `model calls per executed cell ${s.callsPerCell === null ? '–' : s.callsPerCell.toFixed(2)}; ` +
      `first request ${s.firstPromptTokens ?? '–'} prompt tokens, first token after ` +
      `${s.firstTokenMs === null ? '–' : `${(s.firstTokenMs / 1000).toFixed(1)} s`} (medians).`,
    '',
    '| category | tasks | succeeded | rate |',
    '| --- | ---: | ---: | ---: |',
    ...Object.entries(s.byCategory).map(
      ([name, c]) =>
        `| ${name} | ${c.tasks} | ${c.succeeded} | ${percent(c.succeeded, c.tasks)} |`
    ),
    '',
    '| task | passed runs | median | ends | wall s | cells run | detail (last run) |',
    '| --- | :---: | :---: | --- | ---: | ---: | --- |',
    ...s.tasks.map(
      t =>
        `| ${t.id} | ${t.passes}/${t.runs} | ${t.success ? '✅' : '❌'} | ${t.ends.join(', ')} | ` +
        `${t.wallS.toFixed(1)} | ${t.cellsRun} | ${t.detail.replace(/\|/g, '\\|').replace(/\s+/g, ' ').slice(0, 100)} |`
    ),
    ''
  ].join('\n');
}
