/**
 * The reports of the follow-up, Fix and Generate sets: results.json (every
 * row) and results.md (the summary, tables in the style of the Q&A set's,
 * and a line to paste beside the Q&A table in docs/evaluation.md's "Real models").
 * Several runs are merged per task (and per question) as the Q&A set's are
 * (repeat.ts): a task or question succeeds when it did in most runs; times
 * and counts are medians.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SMALL_PROMPT_VERSION } from '../../../src/agent/context/small-model-prompt';
import { PROMPT_VERSION } from '../../../src/agent/context/system-prompt';
import { median } from '../repeat';
import type {
  IFixRow,
  IFollowupRow,
  IGenerateRow,
  IRowBase,
  SessionSetKind
} from './types';

/** What ran. */
export interface ISetRunInfo {
  set: string;
  kind: SessionSetKind;
  model: string;
  /** The endpoint as described (the lane names the server and its flags). */
  label: string;
  /** e.g. "small profile, text protocol". */
  agent: string;
  concurrency: number;
  timeoutS: number;
  maxSteps: number;
  startedAt: string;
  wallS: number;
  jupyterServer?: string;
}

/** A row merged over runs: how many runs it passed in. */
export type Merged<T> = T & { passes: number; runs: number };

/** The rows of several runs of one set merged per task (rows in the set's order). */
export function mergeRuns<T extends IRowBase>(
  runs: ReadonlyArray<ReadonlyArray<T>>
): Array<Merged<T>> {
  const first = runs[0] ?? [];
  return first.map((row, index) => {
    const all = runs.map(run => run[index]).filter(Boolean);
    return {
      ...(mergeObjects(all as unknown as Array<Record<string, unknown>>) as T),
      passes: all.filter(r => r.success).length,
      runs: all.length
    };
  });
}

/** Keep the last run's text for these; merge the rest by kind. */
const LAST = new Set(['detail', 'answer', 'error', 'id', 'category']);

function mergeObjects(
  objects: ReadonlyArray<Record<string, unknown>>
): Record<string, unknown> {
  const merged: Record<string, unknown> = {};
  const keys = new Set(objects.flatMap(o => Object.keys(o)));
  for (const key of keys) {
    const values = objects.map(o => o[key]).filter(v => v !== undefined);
    merged[key] = LAST.has(key)
      ? values[values.length - 1]
      : mergeValues(values);
  }
  return merged;
}

function mergeValues(values: ReadonlyArray<unknown>): unknown {
  const first = values[0];
  if (typeof first === 'boolean') {
    return values.filter(Boolean).length * 2 > values.length;
  }
  if (typeof first === 'number') {
    return median(values as number[]);
  }
  if (typeof first === 'string') {
    const distinct = [...new Set(values as string[])];
    return distinct.length === 1 ? first : (values as string[]).join(' | ');
  }
  if (
    Array.isArray(first) &&
    first.length &&
    typeof first[0] === 'object' &&
    first[0] !== null
  ) {
    // Rows inside a row (a session's questions): merged one by one.
    return first.map((_, i) => {
      const all = (values as Array<Array<Record<string, unknown>>>)
        .map(v => v[i])
        .filter(Boolean);
      return {
        ...mergeObjects(all),
        passes: all.filter(r => r.success).length,
        runs: all.length
      };
    });
  }
  return values[values.length - 1];
}

const percent = (part: number, whole: number) =>
  whole ? `${((100 * part) / whole).toFixed(0)} %` : '–';

const ordinal = (n: number) =>
  `${n}${n % 10 === 1 && n !== 11 ? 'st' : n % 10 === 2 && n !== 12 ? 'nd' : n % 10 === 3 && n !== 13 ? 'rd' : 'th'}`;

const mark = (ok: boolean) => (ok ? '✅' : '❌');

/** Escape a table cell. */
function cell(text: string, max = 140): string {
  return text.replace(/\|/g, '\\|').replace(/\s+/g, ' ').slice(0, max);
}

const TITLES: Record<SessionSetKind, string> = {
  followup: 'follow-up questions',
  fix: 'Fix this cell',
  generate: 'Generate notebook'
};

function header(info: ISetRunInfo, runs: number, unit: string): string[] {
  return [
    `# Notebook Agent eval: ${TITLES[info.kind]} (${info.set})`,
    '',
    `Model ${info.label}; Notebook Agent, ${info.agent}; prompt v${PROMPT_VERSION} ` +
      `(small-model prompt v${SMALL_PROMPT_VERSION}); started ${info.startedAt}; ` +
      `${info.concurrency} at a time, timeout ${info.timeoutS} s per ${unit} (a task may set its own), ` +
      `≤ ${info.maxSteps} model calls per turn; ` +
      (runs > 1
        ? `median of ${runs} runs (a ${unit} counts when it succeeded in most runs)`
        : '1 run') +
      `${info.jupyterServer ? `; notebooks and kernels on the Jupyter server at ${info.jupyterServer}` : ''}.`,
    ''
  ];
}

function categoryTable(rows: ReadonlyArray<IRowBase>, label: string): string[] {
  const by = new Map<string, { tasks: number; succeeded: number }>();
  for (const row of rows) {
    const key = row.category ?? 'other';
    const entry = by.get(key) ?? { tasks: 0, succeeded: 0 };
    entry.tasks += 1;
    entry.succeeded += row.success ? 1 : 0;
    by.set(key, entry);
  }
  return [
    `| category | ${label} | succeeded | rate |`,
    '| --- | ---: | ---: | ---: |',
    ...[...by].map(
      ([name, c]) =>
        `| ${name} | ${c.tasks} | ${c.succeeded} | ${percent(c.succeeded, c.tasks)} |`
    ),
    ''
  ];
}

/** "2/3" for a row merged over runs ('' for one run). */
function passed(row: object): string {
  const r = row as { passes?: number; runs?: number };
  return r.runs && r.runs > 1 ? `${r.passes}/${r.runs}` : '';
}

/** Follow-ups: the figures per position and per category. */
export function followupSummary(rows: ReadonlyArray<IFollowupRow>) {
  const questions = rows.flatMap(r => r.questions);
  const positions = [...new Set(questions.map(q => q.position))].sort(
    (a, b) => a - b
  );
  return {
    sessions: rows.length,
    sessionsAllRight: rows.filter(r => r.success).length,
    questions: questions.length,
    succeeded: questions.filter(q => q.success).length,
    notComputed: questions.filter(q => q.notComputed.length).length,
    medianQuestionS: median(questions.map(q => q.wallS)) ?? 0,
    byPosition: positions.map(position => {
      const at = questions.filter(q => q.position === position);
      return {
        position,
        questions: at.length,
        succeeded: at.filter(q => q.success).length
      };
    })
  };
}

/** The follow-up report. */
export function followupMarkdown(
  info: ISetRunInfo,
  rows: ReadonlyArray<Merged<IFollowupRow> | IFollowupRow>,
  perRun: number[]
): string {
  const s = followupSummary(rows);
  const most = Math.max(0, ...rows.map(r => r.questions.length));
  const byCategory = new Map<
    string,
    { sessions: number; q: number; ok: number }
  >();
  for (const row of rows) {
    const key = row.category ?? 'other';
    const e = byCategory.get(key) ?? { sessions: 0, q: 0, ok: 0 };
    e.sessions += 1;
    e.q += row.questions.length;
    e.ok += row.questions.filter(q => q.success).length;
    byCategory.set(key, e);
  }
  return [
    ...header(info, perRun.length, 'question'),
    `**Questions: ${s.succeeded}/${s.questions} (${percent(s.succeeded, s.questions)})**; ` +
      `sessions with every question right: ${s.sessionsAllRight}/${s.sessions}; ` +
      (perRun.length > 1 ? `per run: ${perRun.join(', ')} questions; ` : '') +
      `median ${s.medianQuestionS.toFixed(1)} s per question; ` +
      `answers stating numbers not computed in the notebook: ${s.notComputed}; wall ${info.wallS.toFixed(0)} s.`,
    '',
    'By position in the session (does it drift?):',
    '',
    '| question | asked | succeeded | rate |',
    '| --- | ---: | ---: | ---: |',
    ...s.byPosition.map(
      p =>
        `| ${ordinal(p.position)} | ${p.questions} | ${p.succeeded} | ${percent(p.succeeded, p.questions)} |`
    ),
    '',
    '| category | sessions | questions | succeeded | rate |',
    '| --- | ---: | ---: | ---: | ---: |',
    ...[...byCategory].map(
      ([name, c]) =>
        `| ${name} | ${c.sessions} | ${c.q} | ${c.ok} | ${percent(c.ok, c.q)} |`
    ),
    '',
    `| session | category | ${Array.from({ length: most }, (_, i) => `Q${i + 1}`).join(' | ')} | model calls | cells run | wall s | first failure |`,
    `| --- | --- | ${Array.from({ length: most }, () => ':---:').join(' | ')} | ---: | ---: | ---: | --- |`,
    ...rows.map(row => {
      const marks = Array.from({ length: most }, (_, i) => {
        const q = row.questions[i] as
          | (IFollowupRow['questions'][number] & {
              passes?: number;
              runs?: number;
            })
          | undefined;
        if (!q) {
          return '';
        }
        const runs = passed(q);
        return `${mark(q.success)}${runs ? ` ${runs}` : ''}${q.notComputed.length ? ' ⚠' : ''}`;
      });
      const failure = row.error
        ? `harness error: ${row.error}`
        : (row.questions.find(q => !q.success)?.detail ?? '');
      const firstFailure = row.questions.find(q => !q.success);
      return (
        `| ${row.id} | ${row.category ?? ''} | ${marks.join(' | ')} | ${row.modelCalls} | ${row.cellsRun} | ` +
        `${row.wallS.toFixed(1)} | ${firstFailure ? `Q${firstFailure.position}: ` : ''}${cell(failure)} |`
      );
    }),
    '',
    '⚠: the answer states numbers that nothing in the notebook computed (the sidebar marks it "not computed").',
    '',
    'docs/evaluation.md line (beside the Q&A table):',
    '',
    '```',
    '| model | set | questions right (median) | by position | sessions | median time |',
    '| --- | --- | --- | --- | --- | --- |',
    `| ${info.model} | follow-ups (${info.set}), ${runsLabel(perRun.length)} | **${s.succeeded}/${s.questions} questions (${percent(s.succeeded, s.questions)})** | ` +
      `${s.byPosition.map(p => `${ordinal(p.position)} ${p.succeeded}/${p.questions}`).join(' · ')} | ` +
      `all right ${s.sessionsAllRight}/${s.sessions} sessions | ${s.medianQuestionS.toFixed(1)} s/question |`,
    '```',
    ''
  ].join('\n');
}

const runsLabel = (runs: number) => `${runs} run${runs > 1 ? 's' : ''}`;

/** Fix: the figures. */
export function fixSummary(rows: ReadonlyArray<IFixRow>) {
  const count = (f: (r: IFixRow) => boolean) => rows.filter(f).length;
  return {
    tasks: rows.length,
    succeeded: count(r => r.success),
    inPlace: count(r => r.inPlace),
    runsClean: count(r => r.runsClean),
    checkPassed: count(r => r.checkPassed),
    reviewShown: count(r => r.reviewShown),
    statusFixed: count(r => r.status === 'fixed'),
    withAddedCells: count(r => r.cellsAdded > 0),
    withOtherCellsChanged: count(r => r.otherCellsChanged > 0),
    medianS: median(rows.map(r => r.wallS)) ?? 0
  };
}

/** The Fix report. */
export function fixMarkdown(
  info: ISetRunInfo,
  rows: ReadonlyArray<Merged<IFixRow> | IFixRow>,
  perRun: number[]
): string {
  const s = fixSummary(rows);
  const yes = (ok: boolean) => (ok ? 'yes' : 'no');
  return [
    ...header(info, perRun.length, 'fix'),
    `**Fixed: ${s.succeeded}/${s.tasks} (${percent(s.succeeded, s.tasks)})** ` +
      '(the cell edited in place, it runs without error, its values as expected in the final kernel, and the review shows its diff); ' +
      (perRun.length > 1 ? `per run: ${perRun.join(', ')}; ` : '') +
      `edited in place ${s.inPlace}, runs clean ${s.runsClean}, values as expected ${s.checkPassed}, review shown ${s.reviewShown}, ` +
      `the workflow said "fixed" ${s.statusFixed}; cells added in ${s.withAddedCells} task(s), other cells changed in ${s.withOtherCellsChanged}; ` +
      `median ${s.medianS.toFixed(1)} s per fix; wall ${info.wallS.toFixed(0)} s.`,
    '',
    ...categoryTable(rows, 'tasks'),
    '| task | category | passed runs | success | status | attempts | in place | runs clean | values | review | cells added | other cells changed | error before | model calls | wall s | detail |',
    '| --- | --- | :---: | :---: | --- | ---: | :---: | :---: | :---: | :---: | ---: | ---: | :---: | ---: | ---: | --- |',
    ...rows.map(
      r =>
        `| ${r.id} | ${r.category ?? ''} | ${passed(r)} | ${mark(r.success)} | ${cell(r.status, 40)} | ${r.attempts} | ` +
        `${yes(r.inPlace)} | ${yes(r.runsClean)} | ${yes(r.checkPassed)} | ${yes(r.reviewShown)} | ${r.cellsAdded} | ` +
        `${r.otherCellsChanged} | ${yes(r.failedBefore)} | ${r.modelCalls} | ${r.wallS.toFixed(1)} | ${cell(r.detail)} |`
    ),
    '',
    '"error before": the broken cell showed an error when the fix started (no: a logic error the comment states).',
    '',
    'docs/evaluation.md line (beside the Q&A table):',
    '',
    '```',
    '| model | set | fixed (median) | parts | side effects | median time |',
    '| --- | --- | --- | --- | --- | --- |',
    `| ${info.model} | Fix this cell (${info.set}), ${runsLabel(perRun.length)} | **${s.succeeded}/${s.tasks} (${percent(s.succeeded, s.tasks)})** | ` +
      `in place ${s.inPlace} · runs ${s.runsClean} · values ${s.checkPassed} · review ${s.reviewShown} | ` +
      `cells added in ${s.withAddedCells}, others changed in ${s.withOtherCellsChanged} | ${s.medianS.toFixed(1)} s/fix |`,
    '```',
    ''
  ].join('\n');
}

/** Generate: the figures. */
export function generateSummary(rows: ReadonlyArray<IGenerateRow>) {
  const count = (f: (r: IGenerateRow) => boolean) => rows.filter(f).length;
  const minutes = rows.map(r => r.wallS / 60);
  return {
    tasks: rows.length,
    succeeded: count(r => r.success),
    verified: count(r => r.verified),
    markdownOk: count(r => r.markdownOk),
    filesUsed: count(r => r.filesUsed),
    invented: count(r => r.invented.length > 0),
    valuesFound: count(r => r.valuesFound),
    plotsOk: count(r => r.plotsOk),
    // Rows of runs before the field existed count as neither.
    withFailingCell: count(r => typeof r.summaryOwnsFailure === 'boolean'),
    summaryOwnsFailure: count(r => r.summaryOwnsFailure === true),
    rankingsUnshown: count(r => (r.rankingsUnshown?.length ?? 0) > 0),
    medianMinutes: median(minutes) ?? 0,
    maxMinutes: Math.max(0, ...minutes)
  };
}

/** The Generate report. */
export function generateMarkdown(
  info: ISetRunInfo,
  rows: ReadonlyArray<Merged<IGenerateRow> | IGenerateRow>,
  perRun: number[]
): string {
  const s = generateSummary(rows);
  const yes = (ok: boolean) => (ok ? 'yes' : 'no');
  return [
    ...header(info, perRun.length, 'notebook'),
    `**Success: ${s.succeeded}/${s.tasks} (${percent(s.succeeded, s.tasks)})** ` +
      '(verified by a restart and run-all, a markdown title and no prose in code cells, the named files read and no invented data, the asked values printed, the asked plots shown); ' +
      (perRun.length > 1 ? `per run: ${perRun.join(', ')}; ` : '') +
      `verified ${s.verified}/${s.tasks}, markdown as markdown ${s.markdownOk}, files used ${s.filesUsed} (invented data in ${s.invented}), ` +
      `values shown ${s.valuesFound}, plots ${s.plotsOk}; ` +
      `summaries that say a cell fails ${s.summaryOwnsFailure} of ${s.withFailingCell} notebooks with one; ` +
      `summaries ranking what no table shows ${s.rankingsUnshown}; **median ${s.medianMinutes.toFixed(1)} min per notebook** (longest ${s.maxMinutes.toFixed(1)}); ` +
      `wall ${info.wallS.toFixed(0)} s.`,
    '',
    ...categoryTable(rows, 'notebooks'),
    '| task | passed runs | success | status | title | prose code cells | files read | invented data | values | images (asked) | code / md cells | min | detail |',
    '| --- | :---: | :---: | --- | :---: | ---: | :---: | :---: | :---: | ---: | ---: | ---: | --- |',
    ...rows.map(
      r =>
        `| ${r.id} | ${passed(r)} | ${mark(r.success)} | ${cell(r.status, 40)} | ${yes(r.titleCell)} | ${r.proseCells} | ` +
        `${yes(r.filesUsed)} | ${r.invented.length ? 'yes' : 'no'} | ${yes(r.valuesFound)} | ${r.images} (${r.plotsWanted}) | ` +
        `${r.codeCells} / ${r.markdownCells} | ${(r.wallS / 60).toFixed(1)} | ${cell(r.detail)} |`
    ),
    '',
    'docs/evaluation.md line (beside the Q&A table):',
    '',
    '```',
    '| model | set | success (median) | parts | time |',
    '| --- | --- | --- | --- | --- |',
    `| ${info.model} | Generate notebook (${info.set}), ${runsLabel(perRun.length)} | **${s.succeeded}/${s.tasks} (${percent(s.succeeded, s.tasks)})** | ` +
      `verified ${s.verified} · markdown ${s.markdownOk} · files ${s.filesUsed} (invented ${s.invented}) · values ${s.valuesFound} · plots ${s.plotsOk} | ` +
      `median ${s.medianMinutes.toFixed(1)} min/notebook |`,
    '```',
    ''
  ].join('\n');
}

/** The markdown of a set's rows. */
export function setMarkdown(
  info: ISetRunInfo,
  rows: ReadonlyArray<IRowBase>,
  perRun: number[]
): string {
  switch (info.kind) {
    case 'followup':
      return followupMarkdown(info, rows as IFollowupRow[], perRun);
    case 'fix':
      return fixMarkdown(info, rows as IFixRow[], perRun);
    case 'generate':
      return generateMarkdown(info, rows as IGenerateRow[], perRun);
  }
}

/** The score of one run: questions for follow-ups, tasks otherwise. */
export function runScore(
  kind: SessionSetKind,
  rows: ReadonlyArray<IRowBase>
): number {
  return kind === 'followup'
    ? (rows as IFollowupRow[]).reduce(
        (n, r) => n + r.questions.filter(q => q.success).length,
        0
      )
    : rows.filter(r => r.success).length;
}

/** Write results.json and results.md into `dir`; returns the markdown's path. */
export async function writeSetReport(
  dir: string,
  info: ISetRunInfo,
  rows: ReadonlyArray<IRowBase>,
  perRun: number[]
): Promise<string> {
  await mkdir(dir, { recursive: true });
  await writeFile(
    join(dir, 'results.json'),
    JSON.stringify(
      {
        info: {
          ...info,
          promptVersion: PROMPT_VERSION,
          smallPromptVersion: SMALL_PROMPT_VERSION
        },
        perRun,
        results: rows
      },
      null,
      2
    )
  );
  const markdown = join(dir, 'results.md');
  await writeFile(markdown, setMarkdown(info, rows, perRun));
  return markdown;
}
