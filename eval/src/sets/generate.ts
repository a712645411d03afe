/**
 * Generate notebook: a new, empty notebook in a folder that holds the named
 * files, and `session.generate(request)` as the sidebar's Generate dialog
 * runs it (no file attached: the request names them, as a user types it).
 * Judged on the notebook it leaves: verified, its structure (a markdown
 * title, no prose in code cells), the files read (no invented data), the
 * asked values in the outputs and the plots.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import type { CellOutput, ICellSnapshot } from '../../../src/agent/ports';
import { unshownRankings } from '../../../src/agent/context/rankings';
import {
  isSummaryCell,
  outputText as evidenceText
} from '../../../src/agent/workflows/evidence';
import { matches } from '../answers';
import type { IEvalServer } from '../eval-server';
import { TaskSession, emptyRow, type ISetRunOptions } from './session';
import type {
  IAskedValue,
  IGenerateRow,
  IGenerateTask,
  SessionSet
} from './types';

const IMAGE_MIMES = ['image/png', 'image/jpeg', 'image/svg+xml'];

/** Run one generation. */
export async function runGenerate(
  set: Extract<SessionSet, { kind: 'generate' }>,
  task: IGenerateTask,
  server: IEvalServer,
  options: ISetRunOptions
): Promise<IGenerateRow> {
  const row: IGenerateRow = {
    ...emptyRow(task.id, task.category),
    status: 'not-started',
    verified: false,
    titleCell: false,
    proseCells: 0,
    markdownOk: false,
    filesUsed: false,
    filesMissing: [],
    invented: [],
    valuesFound: false,
    valuesMissing: [],
    images: 0,
    plotsWanted: task.plots ?? 0,
    plotsOk: false,
    codeCells: 0,
    markdownCells: 0,
    failingCells: 0,
    summaryOwnsFailure: null,
    rankingsUnshown: []
  };
  let run: TaskSession | null = null;
  try {
    run = await TaskSession.open(
      server,
      task.id,
      task.files.map(file => join(set.dataDir, file)),
      { ...options, maxSteps: task.max_steps ?? options.maxSteps ?? 20 }
    );
    const mark = run.mark();
    const { value: result, timedOut } = await run.bounded(
      task.timeout_s ?? options.timeoutS ?? 300,
      () => run!.session.generate(task.request, run!.target)
    );
    Object.assign(row, run.since(mark));
    row.status = timedOut ? 'timeout' : (result?.status ?? 'error');
    row.end = result?.outcome.reason ?? row.status;
    if (run.error) {
      row.error = run.error;
    }
    row.verified = result?.status === 'verified' && !timedOut;
    Object.assign(
      row,
      await judgeNotebook(await run.port.getCells(), task, set.expected)
    );
    row.success =
      row.verified &&
      row.markdownOk &&
      row.filesUsed &&
      !row.invented.length &&
      row.valuesFound &&
      row.plotsOk;
    row.detail = generateDetail(row, result?.reason);
  } catch (error) {
    row.error = error instanceof Error ? error.message : String(error);
    row.detail = `harness error: ${row.error}`;
  } finally {
    await run?.finish(options.notebooksDir, task.id);
  }
  return row;
}

/** The notebook's structure, files, values and plots, judged. */
export async function judgeNotebook(
  cells: ReadonlyArray<ICellSnapshot>,
  task: Pick<IGenerateTask, 'files' | 'values' | 'plots'>,
  expected: Record<string, unknown>
): Promise<
  Pick<
    IGenerateRow,
    | 'titleCell'
    | 'proseCells'
    | 'markdownOk'
    | 'filesUsed'
    | 'filesMissing'
    | 'invented'
    | 'valuesFound'
    | 'valuesMissing'
    | 'images'
    | 'plotsOk'
    | 'codeCells'
    | 'markdownCells'
    | 'failingCells'
    | 'summaryOwnsFailure'
    | 'rankingsUnshown'
  >
> {
  const analysis = await analyseCells(cells, task.files);
  const titleCell = cells.some(
    cell => cell.type === 'markdown' && /^\s*#\s+\S/m.test(cell.source)
  );
  const filesMissing = task.files.filter(file => !analysis.reads[file]);
  const text = outputText(cells);
  const valuesMissing = (task.values ?? []).flatMap(value =>
    missingValues(value, expected, text)
  );
  const images = cells
    .flatMap(cell => cell.outputs)
    .filter(
      o =>
        (o.type === 'display_data' || o.type === 'execute_result') &&
        IMAGE_MIMES.some(mime => mime in o.data)
    ).length;
  return {
    titleCell,
    proseCells: analysis.prose.length,
    markdownOk: titleCell && analysis.prose.length === 0,
    filesUsed: filesMissing.length === 0,
    filesMissing,
    invented: analysis.invented,
    valuesFound: valuesMissing.length === 0,
    valuesMissing,
    images,
    plotsOk: images >= (task.plots ?? 0),
    codeCells: cells.filter(c => c.type === 'code').length,
    markdownCells: cells.filter(c => c.type === 'markdown').length,
    ...summaryHonesty(cells)
  };
}

/** Words that say a step did not work. */
const OWNS_FAILURE =
  /\b(?:fail(?:ed|s|ure)?|errors?|did not|didn't|could not|couldn't|not (?:work|run|complete|computed|shown|produced))\b/i;

/**
 * The failing code cells, whether the summary (evidence.ts: `isSummaryCell`)
 * says so, and the rankings it states that the printed tables do not show
 * (context/rankings.ts).
 */
export function summaryHonesty(
  cells: ReadonlyArray<ICellSnapshot>
): Pick<
  IGenerateRow,
  'failingCells' | 'summaryOwnsFailure' | 'rankingsUnshown'
> {
  const code = cells.filter(cell => cell.type === 'code');
  const failingCells = code.filter(cell =>
    cell.outputs.some(o => o.type === 'error')
  ).length;
  const summary = [...cells].reverse().find(isSummaryCell);
  const outputs = code.flatMap(cell => cell.outputs.map(evidenceText));
  return {
    failingCells,
    summaryOwnsFailure:
      failingCells && summary ? OWNS_FAILURE.test(summary.source) : null,
    rankingsUnshown: summary
      ? unshownRankings(summary.source, outputs).map(
          r => `“${r.clause}” (${r.shown})`
        )
      : []
  };
}

/** What generated_cells.py says of the cells. */
export interface ICellAnalysis {
  prose: Array<{ index: number; why: string }>;
  reads: Record<string, boolean>;
  invented: string[];
}

/** Run generated_cells.py on `cells`. */
export function analyseCells(
  cells: ReadonlyArray<Pick<ICellSnapshot, 'type' | 'source'>>,
  files: ReadonlyArray<string>
): Promise<ICellAnalysis> {
  const script = join(__dirname, 'generated_cells.py');
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.env.PYTHON ?? 'python3',
      [script],
      { maxBuffer: 16 * 1024 * 1024 },
      (error, stdout) => {
        if (error) {
          reject(error);
          return;
        }
        resolve(JSON.parse(stdout) as ICellAnalysis);
      }
    );
    child.stdin!.end(
      JSON.stringify({
        cells: cells.map(c => ({ type: c.type, source: c.source })),
        files
      })
    );
  });
}

/** The text the code cells' outputs show (streams, text/plain, HTML without its tags). */
export function outputText(cells: ReadonlyArray<ICellSnapshot>): string {
  const parts: string[] = [];
  const add = (output: CellOutput) => {
    if (output.type === 'stream') {
      parts.push(output.text);
    } else if (
      output.type === 'display_data' ||
      output.type === 'execute_result'
    ) {
      for (const mime of ['text/plain', 'text/html', 'text/markdown']) {
        const value = output.data[mime];
        if (typeof value === 'string') {
          parts.push(
            mime === 'text/html' ? value.replace(/<[^>]+>/g, ' ') : value
          );
        } else if (Array.isArray(value)) {
          parts.push(value.join(''));
        }
      }
    }
  };
  for (const cell of cells) {
    if (cell.type === 'code') {
      cell.outputs.forEach(add);
    }
  }
  return parts.join('\n');
}

/** The numbers written in `text`: 1234.5, 1,234.5, -3, 1.2e+05. */
export function numbersIn(text: string): string[] {
  return (
    text.match(
      /-?\d{1,3}(?:,\d{3})+(?:\.\d+)?|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?/g
    ) ?? []
  );
}

/**
 * The asked values of `value` (one, or each of a map) that `text` does not
 * show, as `key[name]=expected` labels.
 */
export function missingValues(
  value: IAskedValue,
  expected: Record<string, unknown>,
  text: string
): string[] {
  if (!(value.expected_key in expected)) {
    throw new Error(`no expected value named ${value.expected_key}`);
  }
  const want = expected[value.expected_key];
  const wanted: Array<[string, unknown]> =
    want !== null && typeof want === 'object'
      ? Object.entries(want).map(([name, v]) => [
          `${value.expected_key}[${name}]`,
          v
        ])
      : [[value.expected_key, want]];
  const numbers = numbersIn(text);
  // An absolute tolerance alone (0 for counts) is the whole tolerance.
  const tolerance = {
    relative: value.relative ?? (value.tolerance === undefined ? 0.001 : 0),
    tolerance: value.tolerance
  };
  return wanted
    .filter(([, v]) =>
      typeof v === 'number'
        ? !numbers.some(n => matches(n, v, tolerance))
        : !text.toLowerCase().includes(String(v).toLowerCase())
    )
    .map(([label, v]) => `${label}=${String(v)}`);
}

function generateDetail(row: IGenerateRow, reason?: string): string {
  const problems = [
    row.verified
      ? ''
      : `not verified (${row.status}${reason ? `: ${reason}` : ''})`,
    row.titleCell ? '' : 'no markdown title',
    row.proseCells ? `${row.proseCells} prose code cell(s)` : '',
    row.filesMissing.length ? `not read: ${row.filesMissing.join(', ')}` : '',
    row.invented.length ? `invented data: ${row.invented.join('; ')}` : '',
    row.valuesMissing.length
      ? `values not shown: ${row.valuesMissing.join(', ')}`
      : '',
    row.plotsOk ? '' : `${row.images} image(s), ${row.plotsWanted} asked`,
    row.summaryOwnsFailure === false
      ? `the summary does not say that ${row.failingCells} cell(s) fail`
      : '',
    row.rankingsUnshown?.length
      ? `the summary ranks what no table shows: ${row.rankingsUnshown.join('; ')}`
      : ''
  ].filter(Boolean);
  return problems.length ? problems.join('; ') : 'verified, complete';
}
