/**
 * Whether a generated notebook holds the work it claims, once it ran from
 * the top: a notebook of placeholders (`# Your code goes here`), of one
 * empty cell, or whose summary quotes numbers no cell printed, runs
 * without error too. "Verified" needs all of:
 * - a code cell with real code (not only comments, `pass`, `...`,
 *   imports, magics or shell lines);
 * - such a cell produced output, or defined a name (or wrote a file) that
 *   the summary cites;
 * - every number the summary states is in the outputs (context/claims.ts),
 *   or in the code or the request that gave it;
 * - every ranking it states ("East has the highest revenue") is what the
 *   printed tables that hold its label show (context/rankings.ts);
 * - a request that asks for a plot has one (an image output).
 */
import { unsupportedNumbers } from '../context/claims';
import { unshownRankings } from '../context/rankings';
import type { CellOutput, ICellSnapshot } from '../ports';

/** What the notebook's contents say about its work. */
export type Evidence = { ok: true } | { ok: false; reason: string };

/** Lines that do no work: blank, comments, placeholders, imports, magics, shell. */
const IDLE_LINE =
  /^(?:#.*|pass|\.\.\.|Ellipsis|None|raise NotImplementedError.*|(?:from\s+\S+\s+)?import\s.*|[%!].*|(['"]).*\1|)$/;

/** Headings that start a notebook's summary. */
const SUMMARY_HEADING =
  /^#+\s*.*\b(summary|conclusions?|findings|results|key takeaways)\b/im;

/** Whether `cell` is a summary: markdown under a heading that names one. */
export function isSummaryCell(cell: { type: string; source: string }): boolean {
  return cell.type === 'markdown' && SUMMARY_HEADING.test(cell.source);
}

/** Whether `source` holds code that does something. */
export function isWorkingCode(source: string): boolean {
  return source
    .split('\n')
    .map(line => line.trim())
    .some(line => !IDLE_LINE.test(line));
}

/** The notebook's summary: its summary cell(s), else its last markdown cell. */
export function summaryText(cells: ReadonlyArray<ICellSnapshot>): string {
  const markdown = cells.filter(cell => cell.type === 'markdown');
  const summaries = markdown.filter(isSummaryCell);
  const chosen = summaries.length ? summaries : markdown.slice(-1);
  return chosen.map(cell => cell.source).join('\n\n');
}

/** Judge the notebook's work; `request` is what the user asked for. */
export function assessEvidence(
  cells: ReadonlyArray<ICellSnapshot>,
  request = ''
): Evidence {
  const code = cells.filter(cell => cell.type === 'code');
  if (!code.length) {
    return { ok: false, reason: 'the notebook has no code cells' };
  }
  const working = code.filter(cell => isWorkingCode(cell.source));
  if (!working.length) {
    return {
      ok: false,
      reason:
        'no code cell does any work (they are empty or hold only comments, pass or placeholders)'
    };
  }
  const summary = summaryText(cells);
  const productive = working.filter(
    cell =>
      cell.outputs.length > 0 ||
      definitions(cell.source).some(name => cites(summary, name))
  );
  if (!productive.length) {
    return {
      ok: false,
      reason: 'no code cell produced output or defined what the summary cites'
    };
  }
  const missing = unsupportedNumbers(summary, [
    ...code.flatMap(cell => cell.outputs.map(outputText)),
    ...code.map(cell => cell.source),
    request
  ]);
  if (missing.length) {
    const shown = missing.slice(0, 5).join(', ');
    return {
      ok: false,
      reason:
        `the summary states ${shown}${missing.length > 5 ? ', …' : ''}, ` +
        `which no output of the notebook shows`
    };
  }
  const [ranking] = unshownRankings(
    summary,
    code.flatMap(cell => cell.outputs.map(outputText))
  );
  if (ranking) {
    return {
      ok: false,
      reason:
        `the summary says “${ranking.clause}”, which the printed tables do ` +
        `not show (${ranking.shown})`
    };
  }
  if (asksForPlot(request) && !code.some(cell => showsImage(cell.outputs))) {
    return {
      ok: false,
      reason: 'the request asks for a plot, and no cell shows one'
    };
  }
  return { ok: true };
}

/** Words that ask for a picture. */
const PLOT_WORDS =
  /\b(?:plots?|plotted|charts?|graphs?|histograms?|scatter|heat ?maps?|visuali[sz]e|visuali[sz]ation|figures?|box ?plots?|bar ?charts?)\b/i;

/** Whether a request asks for a plot. */
export function asksForPlot(request: string): boolean {
  return PLOT_WORDS.test(request);
}

/** Whether any of `outputs` is an image. */
export function showsImage(outputs: ReadonlyArray<CellOutput>): boolean {
  return outputs.some(
    output =>
      (output.type === 'display_data' || output.type === 'execute_result') &&
      Object.keys(output.data).some(mime => mime.startsWith('image/'))
  );
}

/** The text of an output, as evidence. */
export function outputText(output: CellOutput): string {
  switch (output.type) {
    case 'stream':
      return output.text;
    case 'error':
      return `${output.ename}: ${output.evalue}`;
    case 'display_data':
    case 'execute_result':
      return ['text/plain', 'text/markdown', 'text/html', 'text/latex']
        .map(mime => output.data[mime])
        .map(value => (Array.isArray(value) ? value.join('') : value))
        .filter((value): value is string => typeof value === 'string')
        .join('\n');
  }
}

/** Names a cell defines, and the files it names (string literals with a dot). */
function definitions(source: string): string[] {
  const names = new Set<string>();
  const patterns = [
    /^\s*([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s*(?::[^=\n]+)?=(?!=)/gm,
    /^\s*(?:async\s+)?(?:def|class)\s+([A-Za-z_]\w*)/gm,
    /\bas\s+([A-Za-z_]\w*)/g,
    /\bfor\s+([A-Za-z_]\w*)\s+in\b/g,
    /(['"])([\w./-]+\.\w+)\1/g
  ];
  for (const pattern of patterns) {
    for (const match of source.matchAll(pattern)) {
      const found = match[2] ?? match[1];
      for (const name of found.split(',')) {
        if (name.trim().length > 1) {
          names.add(name.trim());
        }
      }
    }
  }
  return [...names];
}

function cites(summary: string, name: string): boolean {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![\\w.])${escaped}(?![\\w])`).test(summary);
}
