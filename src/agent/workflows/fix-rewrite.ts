/**
 * Fix this cell for small models: the corrected cell is asked for as a
 * code block, the reply begun for the model, and that block becomes the
 * cell's new source, run at once (loop/code-block-tools.ts
 * `rewrite_and_run_cell`); one turn per attempt (fix-cell.ts).
 *
 * Measured with Qwen2.5-Coder-1.5B through the tool-style prompt
 * (fix-cell.ts `fixPrompt`): it explained each fix in words ("use 'sum'
 * instead", "I will import it") and wrote no code; 0 of 3 fixed. What it
 * needs is what it cannot look up itself: the error in one line, the code
 * that ran before the cell, and what the kernel holds (a misspelt column is
 * fixed from the column names).
 */
import { closeColumnHint } from '../context/close-names';
import { dataPreview } from '../context/data-preview';
import { describeFailure } from '../context/failure-focus';
import { kernelVariables } from '../context/kernel-variables';
import type { ICellSnapshot, INotebookPort } from '../ports';

/** Characters of earlier code shown, at most (the newest kept). */
const MAX_EARLIER = 2500;

/** What a rewrite prompt shows besides the cell and its problem. */
export interface IRewriteContext {
  /** The code cells above the cell, joined (the newest last), or ''. */
  earlier: string;
  /** What the kernel holds now (context/kernel-variables.ts), or null. */
  variables: string | null;
  /**
   * The first lines of the data files the cell or the code above it
   * names (context/data-preview.ts): a wrong `sep`, a decimal comma or a
   * preamble is fixed from them. Null when it names none.
   */
  files?: string | null;
}

/** The context of a rewrite of `cellId`, read from the notebook and its kernel. */
export async function rewriteContext(
  notebook: INotebookPort,
  cells: ReadonlyArray<ICellSnapshot>,
  cellId: string,
  signal: AbortSignal
): Promise<IRewriteContext> {
  const earlier = earlierCode(cells, cellId);
  const cell = cells.find(c => c.id === cellId);
  return {
    earlier,
    variables: await kernelVariables(notebook, signal),
    files: await dataPreview(`${cell?.source ?? ''}\n${earlier}`, notebook)
  };
}

/** The code cells above `cellId`, joined, cut from the top to MAX_EARLIER. */
export function earlierCode(
  cells: ReadonlyArray<ICellSnapshot>,
  cellId: string
): string {
  const index = cells.findIndex(cell => cell.id === cellId);
  const code = cells
    .slice(0, Math.max(0, index))
    .filter(cell => cell.type === 'code' && cell.source.trim())
    .map(cell => cell.source.trim())
    .join('\n\n');
  return code.length > MAX_EARLIER
    ? `# (earlier code cut)\n${code.slice(code.length - MAX_EARLIER)}`
    : code;
}

/**
 * The prompt of one attempt: the code before the cell, the kernel's
 * variables and the data files' first lines, then the cell as it is now,
 * what is wrong with it (`problem`, the workflow's words with the error
 * output) and the failure in one line; `again` after an attempt that still
 * fails (`unchanged`: one that sent the cell back as it was, which greedy
 * decoding does).
 *
 * The cell comes last, right before the request: a small model copies the
 * nearest code block. With the earlier code after the cell, the 1.5B
 * walked in Chromium rewrote a one-letter typo (`'regoin'`) into a blend of
 * the agent's earlier attempts above it, three times; that request replayed
 * with the cell last got the typo fixed (2026-12-08, docs/evaluation.md).
 */
export function rewritePrompt(
  cell: ICellSnapshot,
  name: string,
  problem: string,
  context: IRewriteContext,
  again: boolean | 'unchanged'
): string {
  const focus = describeFailure(problem, 'same-cell');
  const meant = closeColumnHint(problem, context.variables);
  return [
    ...(context.earlier
      ? [
          `The code that ran before cell ${name} in the notebook (already run; its variables exist):`,
          '```python',
          context.earlier,
          '```'
        ]
      : []),
    ...(context.variables ? [context.variables] : []),
    ...(context.files ? [context.files] : []),
    again === 'unchanged'
      ? `Your reply was cell ${name} unchanged, and it fails the same way: change the line the error points at. The cell:`
      : again
        ? `Cell ${name} still fails after your change. The cell now:`
        : `Fix cell ${name} so that it runs without an error and does what it is meant to do. The cell:`,
    '```python',
    cell.source,
    '```',
    problem,
    ...(focus ? [`In short: it ${focus}`] : []),
    ...(meant ? [meant] : []),
    'Reply with the whole corrected cell in one ```python block and nothing else. ' +
      'Keep what it is meant to do and change only what is wrong.'
  ].join('\n');
}
