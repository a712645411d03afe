/**
 * The completion request for the cursor in a notebook cell: the cells above
 * as context (in the percent format, `# %%`, which code models have read in
 * many scripts), the kernel's variable names when known, the cell's text
 * before and after the cursor, in the model family's fill-in-the-middle
 * format (fim-format.ts).
 */
import { fimFormatFor, type IFimFormat } from './fim-format';
import type { ICompletionRequest } from './types';

/** A cell above the cursor's, as context. */
export interface IContextCell {
  kind: 'code' | 'markdown';
  source: string;
  /** A short text of its last output, when it has one (code cells). */
  output?: string;
}

/** Where the cursor is, and what surrounds it. */
export interface ICursorContext {
  /** The cell's text before the cursor. */
  before: string;
  /** The cell's text after the cursor. */
  after: string;
  /** The notebook's cells above this one, oldest first. */
  cellsAbove: IContextCell[];
  /** Names of the kernel's variables, when known. */
  variables?: string[];
}

/**
 * What the suggestion completes: the rest of the line (the cursor's line
 * has text: while typing, one line comes back fast and is what the person
 * is writing), a block (the cursor is on a blank line: what comes next), or
 * the next cell (an empty cell, after a run).
 */
export type CompletionMode = 'line' | 'block' | 'next-cell';

/** The request and how to read its answer. */
export interface IBuiltCompletion {
  request: ICompletionRequest;
  mode: CompletionMode;
  format: IFimFormat;
}

/** Limits of a request. */
export interface ICompletionLimits {
  /** Most tokens a suggestion may have. */
  maxTokens: number;
  /** Characters of context before the cursor (cells above included). */
  beforeChars?: number;
  /** Characters after the cursor. */
  afterChars?: number;
}

/** A marker between cells (Jupytext's percent format). */
export const CELL_MARKER = '# %%';
/** The comment line before a context cell's output. */
export const OUTPUT_MARKER = '# Out:';

const BEFORE_CHARS = 4000;
const AFTER_CHARS = 1000;
/** The output lines kept per context cell. */
const OUTPUT_LINES = 6;
/** Output is shown for this many cells nearest the cursor. */
const OUTPUT_CELLS = 2;
/** Variable names listed, at most. */
const VARIABLES = 40;

/** Which kind of suggestion fits the cursor. */
export function completionMode(before: string, after: string): CompletionMode {
  if (!before.trim() && !after.trim()) {
    return 'next-cell';
  }
  const lineBefore = before.slice(before.lastIndexOf('\n') + 1);
  const lineAfter = after.split('\n', 1)[0];
  // Text after the cursor on its line (a closing bracket too) stays after
  // the suggestion: only the rest of the line fits between them.
  return lineBefore.trim() || lineAfter.trim() ? 'line' : 'block';
}

/** Build the request for `model` at the cursor. */
export function buildCompletion(
  cursor: ICursorContext,
  model: string,
  limits: ICompletionLimits
): IBuiltCompletion {
  const format = fimFormatFor(model);
  const mode = completionMode(cursor.before, cursor.after);
  const before = contextBefore(cursor, limits.beforeChars ?? BEFORE_CHARS);
  const after = wholeCharacters(
    cursor.after.slice(0, limits.afterChars ?? AFTER_CHARS)
  );
  // A line ends at its newline; a block at a blank line or a new cell.
  const modeStop = mode === 'line' ? '\n' : '\n\n';
  // A next cell tends to go on with an output in the prompt's form; other
  // suggestions with a new cell.
  const marker = mode === 'next-cell' ? OUTPUT_MARKER : CELL_MARKER;
  const stop = [...format.stop, modeStop, `\n${marker}`].slice(0, 4);
  return {
    request: {
      prompt: format.prompt(before, after),
      stop,
      maxTokens:
        mode === 'line' ? Math.min(limits.maxTokens, 32) : limits.maxTokens
    },
    mode,
    format
  };
}

/** The text before the cursor with as many whole cells above as fit. */
function contextBefore(cursor: ICursorContext, budget: number): string {
  const own = `${CELL_MARKER}\n${cursor.before}`;
  const variables = cursor.variables?.length
    ? `# Variables in the kernel: ${cursor.variables.slice(0, VARIABLES).join(', ')}\n`
    : '';
  let room = budget - own.length - variables.length;
  const cells: string[] = [];
  const above = cursor.cellsAbove;
  for (let i = above.length - 1; i >= 0 && room > 0; i--) {
    const text = cellText(above[i], above.length - i <= OUTPUT_CELLS);
    if (text.length > room) {
      break;
    }
    cells.unshift(text);
    room -= text.length;
  }
  const all = cells.join('') + variables + own;
  // The cell itself may be longer than the budget: keep its end.
  return all.length > budget
    ? wholeCharacters(all.slice(all.length - budget))
    : all;
}

/**
 * `text` without half a character at either end: a cut by UTF-16 units can
 * split an emoji's surrogate pair, and the server refuses a request with a
 * lone surrogate (it is no text), so the suggestion failed with a 400.
 */
export function wholeCharacters(text: string): string {
  const start = /^[\udc00-\udfff]/.test(text) ? 1 : 0;
  const end = /[\ud800-\udbff]$/.test(text) ? text.length - 1 : text.length;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

function cellText(cell: IContextCell, withOutput: boolean): string {
  if (cell.kind === 'markdown') {
    const lines = cell.source.trim().split('\n');
    return `${CELL_MARKER} [markdown]\n${lines.map(l => `# ${l}`.trimEnd()).join('\n')}\n\n`;
  }
  let text = `${CELL_MARKER}\n${cell.source.trimEnd()}\n`;
  // Leading blank lines go; a table's leading spaces stay.
  const output = withOutput ? cell.output?.replace(/^\s*\n/, '').trimEnd() : '';
  if (output) {
    const lines = output.split('\n').slice(0, OUTPUT_LINES);
    text += `${OUTPUT_MARKER}\n${lines.map(l => `# ${l}`.trimEnd()).join('\n')}\n`;
  }
  return `${text}\n`;
}
