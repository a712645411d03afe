/**
 * A cell named as the user sees it, never by its id: "[3]" by its
 * execution count (the prompt JupyterLab shows beside it), else "4", its
 * position counting every cell from the top. Fix this cell's transcript
 * line and its review use these names.
 */
import type { ICellSnapshot } from '../ports';

/** How long the code quoted after a cell's name may be. */
const QUOTE_LENGTH = 40;

/**
 * "[3]" (execution count) or "4" (position, from 1, for a cell that has not
 * run), as in "cell [3]"; null when `cellId` is not among `cells`.
 */
export function cellNumber(
  cells: ReadonlyArray<ICellSnapshot>,
  cellId: string
): string | null {
  const index = cells.findIndex(cell => cell.id === cellId);
  if (index < 0) {
    return null;
  }
  const count = cells[index].executionCount;
  return count !== null ? `[${count}]` : String(index + 1);
}

/** The first line of code that is not blank, cut to a short quote ("df.groupby('a')…"). */
export function firstLine(source: string): string {
  const line =
    source
      .split('\n')
      .map(text => text.trim())
      .find(text => text.length > 0) ?? '';
  return line.length > QUOTE_LENGTH
    ? `${line.slice(0, QUOTE_LENGTH - 1).trimEnd()}…`
    : line;
}

/**
 * The user's line in the transcript for a fix: "Fix cell [3]: print(totl)"
 * (the cell's name, then the first line of its code).
 */
export function fixRequestLine(
  cells: ReadonlyArray<ICellSnapshot>,
  cellId: string
): string {
  const cell = cells.find(c => c.id === cellId);
  const name = `Fix cell ${cellNumber(cells, cellId) ?? ''}`.trimEnd();
  const quote = cell ? firstLine(cell.source) : '';
  return quote ? `${name}: ${quote}` : name;
}
