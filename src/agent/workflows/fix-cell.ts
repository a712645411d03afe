/**
 * "Fix this cell": give the agent the failing cell and its error, let it
 * edit (this cell, or an earlier one where the cause is) and rerun, check
 * the result ourselves, and repeat a bounded number of times. The changes
 * come back as a list the user accepts or rejects (see cell-changes.ts).
 */
import {
  MISSING_VALUES_PROBLEM,
  outputsAllMissing
} from '../context/missing-values';
import {
  multipliedSums,
  multipliedSumsProblem
} from '../context/multiplied-sums';
import { formatOutputs, formatRunResult } from '../context/observations';
import {
  NotebookPortError,
  type CellOutput,
  type ICellSnapshot,
  type INotebookPort,
  type IRunOptions
} from '../ports';
import type { ToolFilter } from '../tools/registry';
import { diffCells, type ICellChange } from './cell-changes';
import { cellNumber, fixRequestLine } from './cell-label';
import { rewriteContext, rewritePrompt } from './fix-rewrite';
import type { OffersTool } from '../tools/run-state';
import type { TurnRunner } from './turn-runner';

/** Attempts before giving up, by default. */
export const DEFAULT_FIX_ATTEMPTS = 3;

/**
 * Turns that change no cell before giving up, by default. Only a turn that
 * changed something counts as an attempt, so this is what bounds a model
 * that keeps answering without an edit.
 */
export const DEFAULT_TURNS_WITHOUT_EDIT = 2;

/**
 * During a fix, what reaches outside the notebook (installs, shell
 * commands) always waits for the user.
 */
export const FIX_ALWAYS_ASK: ToolFilter = tool => tool.reachesOutside === true;

/** What a fix needs. */
export interface IFixCellOptions {
  notebook: INotebookPort;
  cellId: string;
  runTurn: TurnRunner;
  /** Turns that changed a cell (attempts) before giving up. */
  maxAttempts?: number;
  /** Turns that changed no cell before giving up. */
  maxTurnsWithoutEdit?: number;
  /** For the check run of the cell (hard timeout, Stop). */
  runOptions?: IRunOptions;
  /**
   * Small models (the text protocol): each attempt asks for the corrected
   * cell as a code block that replaces the cell and runs (fix-rewrite.ts).
   */
  rewrite?: boolean;
  /** Whether the turns offer a tool: the prompts name only those (default: all). */
  offers?: OffersTool;
}

/** How a fix ended. */
export interface IFixResult {
  /**
   * `fixed`: the cell ran without error; `not-fixed`: it still fails after
   * every attempt; `stopped`: the user stopped it; `failed`: the model or
   * the notebook failed (the session shows the error).
   */
  status: 'fixed' | 'not-fixed' | 'stopped' | 'failed';
  /** Turns in which the agent changed a cell. */
  attempts: number;
  /** Turns in which it changed none (not counted as attempts). */
  turnsWithoutEdit: number;
  /**
   * For `not-fixed`: `no-edit` when it ended because the agent kept
   * answering without changing a cell, `attempts` when every attempt was used.
   */
  gaveUp?: 'attempts' | 'no-edit';
  /** Every cell the agent changed, against the notebook before the fix. */
  changes: ICellChange[];
  /** The changed cells as the user sees them now ("[4]", or "2" by position), by id. */
  names: Record<string, string>;
  /** The cell's problem as last seen (its error), when not fixed. */
  problem?: string;
}

/** Run the fix loop for one cell. */
export async function fixCell(options: IFixCellOptions): Promise<IFixResult> {
  const { notebook, cellId, runTurn } = options;
  const maxAttempts = Math.max(1, options.maxAttempts ?? DEFAULT_FIX_ATTEMPTS);
  const maxIdle = Math.max(
    1,
    options.maxTurnsWithoutEdit ?? DEFAULT_TURNS_WITHOUT_EDIT
  );
  const before = await notebook.getCells();
  const target = before.find(cell => cell.id === cellId);
  if (!target || target.type !== 'code') {
    throw new NotebookPortError(
      target
        ? `Cell ${cellId} is a ${target.type} cell: only code cells can be fixed.`
        : `There is no cell ${cellId} in ${notebook.path}.`
    );
  }
  let problem = describeProblem(target);
  const hadError =
    target.executionCount === null ||
    target.outputs.some(output => output.type === 'error');
  let status: IFixResult['status'] = 'not-fixed';
  let attempts = 0;
  let idle = 0;
  // The last turn changed no cell (the next prompt says so).
  let unchanged = false;
  while (attempts < maxAttempts && idle < maxIdle) {
    const cells = await notebook.getCells();
    const current = cells.find(c => c.id === cellId);
    if (!current) {
      status = 'failed';
      problem = `Cell ${cellId} was deleted during the fix.`;
      break;
    }
    const first = attempts + idle === 0;
    const attempt = attempts + 1;
    const prompt = options.rewrite
      ? rewritePrompt(
          current,
          cellNumber(cells, cellId) ?? cellId,
          problem,
          await rewriteContext(
            notebook,
            cells,
            cellId,
            options.runOptions?.signal ?? new AbortController().signal
          ),
          first ? false : unchanged ? 'unchanged' : true
        )
      : first
        ? fixPrompt(current, problem, maxAttempts, options.offers)
        : retryPrompt(current, problem, attempt, maxAttempts, unchanged);
    const outcome = await runTurn(prompt, {
      // The user's request names the cell as they see it; later turns
      // are the workflow's own progress, shown as status lines.
      ...(first
        ? { display: fixRequestLine(before, cellId) }
        : { status: statusLine(attempt, maxAttempts, unchanged) }),
      knownCells: [{ id: current.id, source: current.source }],
      approvedCells: new Set([cellId]),
      // One attempt per turn: the reply is the cell's new code, run at once
      // (sampled after a turn that changed nothing: greedy repeats itself).
      // The rewrite prompt holds the code above, the variables and the
      // files: the chat before the fix is left out. The walk's fix of a
      // one-letter typo after a question, replayed with the 1.5B: with the
      // chat, the reply also rewrote a column nobody asked about; without,
      // it was the one corrected line (2026-12-08, docs/evaluation.md).
      ...(options.rewrite
        ? {
            codeTarget: cellId,
            codeOnly: true,
            endAfterRun: cellId,
            ownHistory: true,
            ...(unchanged ? { sampled: true } : {})
          }
        : {})
    });
    if (outcome.reason === 'stopped') {
      status = 'stopped';
      break;
    }
    if (outcome.reason === 'error') {
      status = 'failed';
      break;
    }
    // A rewrite that only dropped or changed comments changed no code.
    unchanged = diffCells(cells, await notebook.getCells()).every(
      change =>
        change.kind === 'edited' &&
        codeLines(change.before ?? '') === codeLines(change.after ?? '')
    );
    if (unchanged) {
      idle += 1;
    } else {
      attempts += 1;
    }
    const check = await checkCell(notebook, cellId, options.runOptions);
    if (check === null) {
      status = 'failed';
      problem = `Cell ${cellId} was deleted during the fix.`;
      break;
    }
    // A cell that ran without an error (a wrong result, the user said)
    // is fixed only by a change to it: running clean proves nothing.
    if (check.ok) {
      if (hadError || !unchanged) {
        status = 'fixed';
        break;
      }
      continue;
    }
    problem = check.problem;
  }
  const after = await notebook.getCells();
  const changes = diffCells(before, after);
  const names: Record<string, string> = {};
  for (const change of changes) {
    // As the user sees it now, and as the transcript's "Fix cell [3]" named
    // it when the agent's run gave it a new count: "[4] (was [3])".
    const now = cellNumber(after, change.cellId);
    const then = cellNumber(before, change.cellId);
    names[change.cellId] =
      now && then?.startsWith('[') && now !== then
        ? `${now} (was ${then})`
        : (now ?? then ?? change.cellId);
  }
  const result = {
    status,
    attempts,
    turnsWithoutEdit: idle,
    changes,
    names
  };
  if (status === 'fixed') {
    return result;
  }
  return status === 'not-fixed'
    ? {
        ...result,
        gaveUp: attempts >= maxAttempts ? 'attempts' : 'no-edit',
        problem
      }
    : { ...result, problem };
}

/**
 * The transcript's status line before a retry: "The cell still fails:
 * attempt 2 of 3", or, after a turn that changed nothing, that it asks again.
 */
export function statusLine(
  attempt: number,
  maxAttempts: number,
  unchanged: boolean
): string {
  return unchanged
    ? `No cell was changed and the cell still fails: asking again (attempt ${attempt} of ${maxAttempts})`
    : `The cell still fails: attempt ${attempt} of ${maxAttempts}`;
}

/** The first prompt of a fix. */
export function fixPrompt(
  cell: ICellSnapshot,
  problem: string,
  maxAttempts: number,
  offers: OffersTool = () => true
): string {
  return [
    `Fix cell ${cell.id} of this notebook. Its source:`,
    '```python',
    cell.source,
    '```',
    problem,
    '',
    'How to work:',
    '- The cause may be in an earlier cell (a missing import, a variable defined wrongly): ' +
      (offers('inspect_variables')
        ? 'read_notebook, and inspect_variables when it helps.'
        : 'read_notebook.'),
    `- Edit cell ${cell.id} in place with edit_cell (you may edit an earlier cell the same way ` +
      'when the cause is there), then run_cell each cell you changed, earlier ones first, and ' +
      `finally cell ${cell.id}.`,
    '- Keep the cell’s intent and change as little as needed. Do not delete cells or add new ones ' +
      'unless the fix cannot be done otherwise.',
    ...(offers('install_package')
      ? [
          '- A missing package: call install_package (the user approves it first).'
        ]
      : []),
    '- The user reviews your changes as a diff and may reject them.',
    '- End with one or two sentences: the cause, and what you changed.',
    `This is attempt 1 of ${maxAttempts}.`
  ].join('\n');
}

/**
 * The prompt after a turn that left the cell failing; `unchanged` when that
 * turn changed no cell.
 */
export function retryPrompt(
  cell: ICellSnapshot,
  problem: string,
  attempt: number,
  maxAttempts: number,
  unchanged = false
): string {
  return [
    unchanged
      ? `You changed no cell, and cell ${cell.id} still fails. Its source:`
      : `Cell ${cell.id} still fails after your change. Its source now:`,
    '```python',
    cell.source,
    '```',
    problem,
    unchanged
      ? 'Edit the cell that causes the error with edit_cell (this one or an earlier one), then run it. ' +
        'If you cannot find a fix, say so in one sentence.'
      : 'Find the real cause (look at earlier cells too) and fix it.',
    `This is attempt ${attempt} of ${maxAttempts}.`
  ].join('\n');
}

/** The cell's problem in words, from its outputs. */
function describeProblem(cell: ICellSnapshot): string {
  if (cell.outputs.some(output => output.type === 'error')) {
    return `When it last ran, it failed:\n${formatOutputs(cell.outputs)}`;
  }
  if (cell.executionCount === null) {
    return 'It has not run yet: run it, and fix whatever error it raises.';
  }
  return (
    'It ran without an error, but the user asked for a fix: its result is wrong. Compare what the code ' +
    'does with what its comments (and any assert) say it should do, and change the code to do that; ' +
    `check its output for a problem (warnings, wrong values). Its output was:\n${formatOutputs(cell.outputs)}`
  );
}

/**
 * Whether the cell now runs cleanly. Trusts the agent's own last run when
 * it ran the current source; otherwise runs the cell once to find out.
 * Null when the cell is gone.
 */
async function checkCell(
  notebook: INotebookPort,
  cellId: string,
  options: IRunOptions = {}
): Promise<{ ok: true } | { ok: false; problem: string } | null> {
  const cell = (await notebook.getCells()).find(c => c.id === cellId);
  if (!cell) {
    return null;
  }
  const ranCurrentSource =
    cell.executionCount !== null && cell.lastRunSource === cell.source;
  if (ranCurrentSource) {
    return cell.outputs.some(output => output.type === 'error')
      ? { ok: false, problem: `It failed:\n${formatOutputs(cell.outputs)}` }
      : cleanRun(cell.source, cell.outputs);
  }
  const result = await notebook.runCell(cellId, {
    signal: options.signal,
    hardTimeoutMs: options.hardTimeoutMs
  });
  return result.status === 'ok'
    ? cleanRun(cell.source, result.outputs)
    : {
        ok: false,
        problem: `When it ran just now:\n${formatRunResult(result)}`
      };
}

/**
 * A run without an error is a fix unless all it printed is NaN (the 1.5B
 * copied a misaligned groupby from the cell above into the broken one), or
 * its code multiplies grouped sums (the 1.5B copied the ask's revenue code,
 * Σunits × Σunit_price, into the broken cell in a walk).
 */
function cleanRun(
  source: string,
  outputs: ReadonlyArray<CellOutput>
): { ok: true } | { ok: false; problem: string } {
  if (outputsAllMissing(outputs)) {
    return {
      ok: false,
      problem: `${MISSING_VALUES_PROBLEM} Its output:\n${formatOutputs([...outputs])}`
    };
  }
  const product = multipliedSums(source);
  return product
    ? { ok: false, problem: multipliedSumsProblem(product) }
    : { ok: true };
}

/** A cell's code without comment-only and blank lines or trailing spaces. */
export function codeLines(source: string): string {
  return source
    .split('\n')
    .map(line => line.trimEnd())
    .filter(line => line.trim() && !line.trim().startsWith('#'))
    .join('\n');
}
