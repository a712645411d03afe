/**
 * `eval/run.ts --set followup|fix|generate` (or `--tasks` naming such a
 * set): load the set, run it `--runs` times through the product's
 * AgentSession, and write each run's report (run-K/ when more than one)
 * and the merged one (per task and question: the median of the runs).
 */
import { join } from 'node:path';
import { capabilitiesFor } from '../../../src/agent/model/capabilities';
import { loadSessionSet } from './load';
import {
  mergeRuns,
  runScore,
  writeSetReport,
  type ISetRunInfo
} from './report';
import { runSessionSet } from './run-set';
import type { IEndpoint, ISetRunOptions } from './session';
import type {
  IFixRow,
  IFollowupRow,
  IGenerateRow,
  IRowBase,
  SetRows
} from './types';

/** What the command line gave. */
export interface ISetCliOptions {
  file: string;
  endpoint: IEndpoint;
  dataDir?: string;
  only?: string;
  limit?: string;
  runs: number;
  concurrency: number;
  timeoutS: number;
  maxSteps: number;
  server?: ISetRunOptions['server'];
  out: string;
  label: string;
  /** Options that only the Q&A set takes, if given: refused with the reason. */
  qaOnly: string[];
}

/** Run a follow-up, Fix or Generate set as the command line asked. */
export async function runSetCli(
  options: ISetCliOptions,
  say: (line: string) => void
): Promise<void> {
  if (options.qaOnly.length) {
    throw new Error(
      `${options.qaOnly.join(', ')}: for the Q&A set only; the follow-up, Fix and Generate sets ` +
        'run the product’s own session, which chooses its profile, protocol and context from the model’s name'
    );
  }
  const set = await loadSessionSet(options.file, { dataDir: options.dataDir });
  if (options.only) {
    const keep = new Set(options.only.split(','));
    const unknown = [...keep].filter(id => !set.tasks.some(t => t.id === id));
    if (unknown.length) {
      throw new Error(`--only: no task ${unknown.join(', ')} in ${set.name}`);
    }
    set.tasks = set.tasks.filter(t => keep.has(t.id)) as typeof set.tasks;
  }
  if (options.limit) {
    set.tasks = set.tasks.slice(0, Number(options.limit)) as typeof set.tasks;
  }
  const caps = capabilitiesFor(options.endpoint.model);
  const info: Omit<ISetRunInfo, 'wallS' | 'startedAt'> = {
    set: set.name,
    kind: set.kind,
    model: options.endpoint.model || '(default)',
    label: options.label,
    agent: `${caps.profile} profile, ${caps.tools} protocol (from the model's name)`,
    concurrency: options.concurrency,
    timeoutS: options.timeoutS,
    maxSteps: options.maxSteps,
    jupyterServer: options.server?.url
  };
  say(
    `${set.tasks.length} ${set.kind} tasks from ${set.name} (data in ${set.dataDir}); ${options.label}` +
      (options.server ? `; Jupyter server ${options.server.url}` : '')
  );
  say(`agent: Notebook Agent's session, ${info.agent}`);
  const startedAt = new Date().toISOString();
  const started = Date.now();
  const all: SetRows[] = [];
  for (let run = 1; run <= options.runs; run++) {
    const dir =
      options.runs > 1 ? join(options.out, `run-${run}`) : options.out;
    const runStarted = Date.now();
    if (options.runs > 1) {
      say(`run ${run} of ${options.runs}`);
    }
    const rows = await runSessionSet(set, {
      endpoint: options.endpoint,
      concurrency: options.concurrency,
      timeoutS: options.timeoutS,
      maxSteps: options.maxSteps,
      server: options.server,
      runId: new Date().toISOString().replace(/[:.]/g, '-'),
      notebooksDir: join(dir, 'notebooks'),
      onResult: row => say(line(row))
    });
    all.push(rows);
    const score = runScore(set.kind, rows);
    const written = await writeSetReport(
      dir,
      { ...info, startedAt, wallS: (Date.now() - runStarted) / 1000 },
      rows,
      [score]
    );
    say(`${scoreLine(set.kind, rows)}; wrote ${written}`);
  }
  if (options.runs > 1) {
    const merged = mergeRuns(all as Array<ReadonlyArray<IRowBase>>);
    const written = await writeSetReport(
      options.out,
      { ...info, startedAt, wallS: (Date.now() - started) / 1000 },
      merged,
      all.map(rows => runScore(set.kind, rows))
    );
    say(
      `median of ${options.runs} runs: ${scoreLine(set.kind, merged as unknown as SetRows)}; wrote ${written}`
    );
  }
}

function scoreLine(kind: string, rows: SetRows): string {
  if (kind === 'followup') {
    const questions = (rows as IFollowupRow[]).flatMap(r => r.questions);
    return `questions ${questions.filter(q => q.success).length}/${questions.length}`;
  }
  return `success ${(rows as IRowBase[]).filter(r => r.success).length}/${rows.length}`;
}

function line(row: IRowBase): string {
  const head = `${row.success ? 'PASS' : 'FAIL'} ${row.id}`;
  if ('questions' in row) {
    const r = row as IFollowupRow;
    return `${head} (${r.questions.map(q => (q.success ? '✓' : '✗')).join('')}, ${r.wallS.toFixed(1)} s): ${r.detail}`;
  }
  if ('inPlace' in row) {
    const r = row as IFixRow;
    return `${head} (${r.status}, ${r.modelCalls} model calls, ${r.wallS.toFixed(1)} s): ${r.detail}`;
  }
  const r = row as IGenerateRow;
  return `${head} (${r.status}, ${(r.wallS / 60).toFixed(1)} min): ${r.detail}`;
}
