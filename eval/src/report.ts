/**
 * The results table: a JSON file with every task's figures and a markdown
 * summary (success rate, tokens, cost, per-category rates, one row a task).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SMALL_PROMPT_VERSION } from '../../src/agent/context/small-model-prompt';
import { PROMPT_VERSION } from '../../src/agent/context/system-prompt';
import { costOf, type IPrice } from '../../src/agent/model/prices';
import type { ITaskResult } from './runner';

/** What the run was. */
export interface IRunInfo {
  taskSet: string;
  model: string;
  baseUrl: string;
  protocol: string;
  concurrency: number;
  timeoutS: number;
  maxSteps: number;
  startedAt: string;
  wallS: number;
  price: IPrice | null;
  /** The Jupyter server given with --server; absent for a private one. */
  jupyterServer?: string;
}

/** The whole report, as written to results.json. */
export interface IReport {
  info: IRunInfo & { promptVersion: number; smallPromptVersion: number };
  summary: {
    tasks: number;
    succeeded: number;
    successRate: number;
    promptTokens: number;
    completionTokens: number;
    /** Some figures are estimates (the endpoint reported no usage). */
    tokensEstimated: boolean;
    /** Tasks whose final answer stated numbers nothing computed. */
    notComputed: number;
    costUsd: number | null;
    /** Cells the agent ran, in all tasks. */
    cellsRun: number;
    /**
     * Model calls per executed cell: the calls that asked for tools divided
     * by the cells run (null when no cell ran). 2 when every cell costs an
     * insert and a run, 1 with `insert_cell` and `run: true`.
     */
    callsPerCell: number | null;
    byCategory: Record<string, { tasks: number; succeeded: number }>;
  };
  results: Array<ITaskResult & { costUsd: number | null }>;
}

/** Build the report from the results. */
export function buildReport(info: IRunInfo, results: ITaskResult[]): IReport {
  const rows = results.map(r => ({
    ...r,
    costUsd: costOf(info.price, r.promptTokens, r.completionTokens)
  }));
  const sum = (f: (r: ITaskResult) => number) =>
    results.reduce((n, r) => n + f(r), 0);
  const byCategory: Record<string, { tasks: number; succeeded: number }> = {};
  for (const r of results) {
    const key = r.category ?? 'other';
    byCategory[key] ??= { tasks: 0, succeeded: 0 };
    byCategory[key].tasks += 1;
    byCategory[key].succeeded += r.success ? 1 : 0;
  }
  const succeeded = results.filter(r => r.success).length;
  const promptTokens = sum(r => r.promptTokens);
  const completionTokens = sum(r => r.completionTokens);
  const cellsRun = sum(r => r.cellsRun);
  return {
    info: {
      ...info,
      promptVersion: PROMPT_VERSION,
      smallPromptVersion: SMALL_PROMPT_VERSION
    },
    summary: {
      tasks: results.length,
      succeeded,
      successRate: results.length ? succeeded / results.length : 0,
      promptTokens,
      completionTokens,
      tokensEstimated: results.some(r => r.tokensEstimated),
      notComputed: results.filter(r => r.notComputed?.length).length,
      costUsd: costOf(info.price, promptTokens, completionTokens),
      cellsRun,
      callsPerCell: cellsRun ? sum(r => r.toolSteps) / cellsRun : null,
      byCategory
    },
    results: rows
  };
}

const usd = (value: number | null) =>
  value === null ? 'n/a' : `$${value.toFixed(4)}`;

/** Model calls per executed cell, for the table ("–" when no cell ran). */
export function perCell(value: number | null): string {
  return value === null ? '–' : value.toFixed(2);
}

/** Escape a table cell. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\s+/g, ' ').slice(0, 120);
}

/** The report as markdown. */
export function toMarkdown(report: IReport): string {
  const { info, summary } = report;
  const lines = [
    `# Notebook Agent eval: ${info.taskSet}`,
    '',
    `Model \`${info.model || '(server default)'}\` at ${info.baseUrl} (${info.protocol} protocol), ` +
      `prompt v${info.promptVersion} (small-model prompt v${info.smallPromptVersion}), started ${info.startedAt}, ${info.concurrency} at a time, ` +
      `timeout ${info.timeoutS} s, ≤ ${info.maxSteps} steps` +
      `${info.jupyterServer ? `; notebooks and kernels on the Jupyter server at ${info.jupyterServer}` : ''}.`,
    '',
    `**Success: ${summary.succeeded}/${summary.tasks} (${(100 * summary.successRate).toFixed(1)} %)**; ` +
      `${summary.promptTokens} prompt + ${summary.completionTokens} completion tokens` +
      `${summary.tokensEstimated ? ' (partly estimated at 4 characters per token: the endpoint reported no usage)' : ''}; ` +
      `cost ${usd(summary.costUsd)}; wall ${info.wallS.toFixed(0)} s; ` +
      `answers stating numbers not computed in the notebook: ${summary.notComputed}; ` +
      `model calls per executed cell: ${perCell(summary.callsPerCell)} (${summary.cellsRun} cells run).`,
    '',
    '| category | tasks | succeeded |',
    '| --- | ---: | ---: |',
    ...Object.entries(summary.byCategory).map(
      ([name, c]) => `| ${name} | ${c.tasks} | ${c.succeeded} |`
    ),
    '',
    '| task | success | end | steps | cells run | calls/cell | prompt tok | completion tok | wall s | cost | not computed | detail |',
    '| --- | :---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |',
    ...report.results.map(
      r =>
        `| ${r.id} | ${r.success ? '✅' : '❌'} | ${r.end} | ${r.steps} | ${r.cellsRun} | ` +
        `${perCell(r.cellsRun ? r.toolSteps / r.cellsRun : null)} | ${r.promptTokens}${r.tokensEstimated ? '~' : ''} | ` +
        `${r.completionTokens}${r.tokensEstimated ? '~' : ''} | ${r.wallS.toFixed(1)} | ${usd(r.costUsd)} | ` +
        `${cell(r.notComputed?.join(', ') ?? '')} | ${cell(r.detail)} |`
    ),
    ''
  ];
  return lines.join('\n');
}

/** Write results.json and results.md into `dir`; returns their paths. */
export async function writeReport(
  dir: string,
  report: IReport
): Promise<{ json: string; markdown: string }> {
  await mkdir(dir, { recursive: true });
  const json = join(dir, 'results.json');
  const markdown = join(dir, 'results.md');
  await writeFile(json, JSON.stringify(report, null, 2));
  await writeFile(markdown, toMarkdown(report));
  return { json, markdown };
}
