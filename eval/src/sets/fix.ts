/**
 * Fix this cell: the user's notebook (working cells, then the broken one)
 * is written and run in order (after the chat's questions, when the task
 * has some: `asked_before`), so the broken cell shows its error as it
 * does when the user asks for the fix; then `session.fixCell` on that
 * cell, as the cell's "Fix" command runs it. Judged on the notebook and
 * kernel afterwards, and on the session's review.
 */
import { join } from 'node:path';
import type { ICellSnapshot } from '../../../src/agent/ports';
import { runChecker } from '../checkers';
import type { IEvalServer } from '../eval-server';
import { TaskSession, emptyRow, type ISetRunOptions } from './session';
import type { IFixRow, IFixTask, SessionSet } from './types';

/** Run one fix task. */
export async function runFix(
  set: Extract<SessionSet, { kind: 'fix' }>,
  task: IFixTask,
  server: IEvalServer,
  options: ISetRunOptions
): Promise<IFixRow> {
  const row: IFixRow = {
    ...emptyRow(task.id, task.category),
    status: 'not-started',
    attempts: 0,
    turnsWithoutEdit: 0,
    inPlace: false,
    runsClean: false,
    checkPassed: false,
    reviewShown: false,
    cellsAdded: 0,
    otherCellsChanged: 0,
    failedBefore: false
  };
  let run: TaskSession | null = null;
  try {
    run = await TaskSession.open(
      server,
      task.id,
      (task.files ?? []).map(file => join(set.dataDir, file)),
      { ...options, maxSteps: task.max_steps ?? options.maxSteps ?? 20 }
    );
    const { port, session } = run;
    for (const prompt of task.asked_before ?? []) {
      await run.bounded(task.timeout_s ?? options.timeoutS ?? 300, () =>
        session.send(prompt, run!.target)
      );
    }
    const ids = await writeAndRun(
      port,
      task.cells,
      (options.cellTimeoutS ?? 120) * 1000
    );
    const targetId = ids[task.target ?? ids.length - 1];
    const before = await port.getCells();
    row.failedBefore = hasError(before.find(c => c.id === targetId));
    const mark = run.mark();
    const { value: result, timedOut } = await run.bounded(
      task.timeout_s ?? options.timeoutS ?? 300,
      () => session.fixCell(targetId, run!.target)
    );
    Object.assign(row, run.since(mark));
    row.status = timedOut ? 'timeout' : (result?.status ?? 'error');
    row.end = row.status;
    row.attempts = result?.attempts ?? 0;
    row.turnsWithoutEdit = result?.turnsWithoutEdit ?? 0;
    if (run.error) {
      row.error = run.error;
    }
    const after = await port.getCells();
    const review = session.getSnapshot().review;
    Object.assign(row, judgeCells(before, after, targetId));
    row.reviewShown = !!review?.changes.some(
      change => change.cellId === targetId && change.kind === 'edited'
    );
    const verdict = await runChecker(task.checker, {
      finalText: '',
      notebook: port,
      expected: set.expected
    });
    row.checkPassed = verdict.pass;
    row.success =
      row.inPlace && row.runsClean && row.checkPassed && row.reviewShown;
    row.detail = fixDetail(row, verdict.detail);
    // The user accepts: the notebook keeps the fix (as saved below).
    session.acceptReview();
  } catch (error) {
    row.error = error instanceof Error ? error.message : String(error);
    row.detail = `harness error: ${row.error}`;
  } finally {
    await run?.finish(options.notebooksDir, task.id);
  }
  return row;
}

/** Insert `sources` as code cells and run them in order (errors and all); their ids. */
export async function writeAndRun(
  port: TaskSession['port'],
  sources: ReadonlyArray<string>,
  hardTimeoutMs: number
): Promise<string[]> {
  const ids: string[] = [];
  for (const source of sources) {
    ids.push((await port.insertCell({ type: 'code', source })).id);
  }
  for (const id of ids) {
    await port.runCell(id, { hardTimeoutMs });
  }
  return ids;
}

/** What the fix did to the notebook, from its cells before and after. */
export function judgeCells(
  before: ReadonlyArray<ICellSnapshot>,
  after: ReadonlyArray<ICellSnapshot>,
  targetId: string
): Pick<IFixRow, 'inPlace' | 'runsClean' | 'cellsAdded' | 'otherCellsChanged'> {
  const was = new Map(before.map(cell => [cell.id, cell]));
  const now = new Map(after.map(cell => [cell.id, cell]));
  const target = now.get(targetId);
  const inPlace =
    !!target &&
    target.type === 'code' &&
    target.source !== was.get(targetId)?.source;
  // It ran the source it has now (the fix's own check run, or the agent's).
  const ranCurrent =
    !!target &&
    target.executionCount !== null &&
    // A port that does not record it (null, undefined) is trusted.
    (target.lastRunSource === null ||
      target.lastRunSource === undefined ||
      target.lastRunSource === target.source);
  return {
    inPlace,
    runsClean: ranCurrent && !hasError(target),
    cellsAdded: after.filter(cell => !was.has(cell.id)).length,
    otherCellsChanged: before.filter(
      cell =>
        cell.id !== targetId &&
        (!now.has(cell.id) || now.get(cell.id)!.source !== cell.source)
    ).length
  };
}

function hasError(cell: ICellSnapshot | undefined): boolean {
  return !!cell?.outputs.some(output => output.type === 'error');
}

function fixDetail(row: IFixRow, check: string): string {
  const missing = [
    row.inPlace ? '' : 'the cell was not edited in place',
    row.runsClean ? '' : 'the cell does not run cleanly',
    row.checkPassed ? '' : check,
    row.reviewShown ? '' : 'no review of the cell’s change'
  ].filter(Boolean);
  const extra = [
    row.cellsAdded ? `${row.cellsAdded} cell(s) added` : '',
    row.otherCellsChanged
      ? `${row.otherCellsChanged} other cell(s) changed`
      : ''
  ].filter(Boolean);
  return (
    `${row.status} after ${row.attempts} attempt(s)` +
    (missing.length ? `: ${missing.join('; ')}` : ': fixed') +
    (extra.length ? ` (${extra.join(', ')})` : '')
  );
}
