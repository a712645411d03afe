/**
 * The executions a port started for the agent: the last run of each cell
 * (kept after it ends: the model may wait for a run that finished after
 * its previous wait returned `running`) and the scratch code in flight.
 *
 * A run that passed its soft timeout is still here until it ends, so a
 * port can say which of the agent's cells are still running, stop them all
 * with one interrupt (the user's Stop, the notebook closing), or give up
 * on them all when the kernel is gone.
 */
import { neverRun, stillRunning } from '../agent/port-refusals';
import type { WatchedExecution } from './watched-execution';

/** The agent's executions on one kernel. */
export class RunTracker {
  /** Track `execution`; a cell's run replaces that cell's previous one. */
  add(execution: WatchedExecution): void {
    this._inFlight.add(execution);
    if (execution.cellId !== null) {
      this._byCell.set(execution.cellId, execution);
    }
    void execution.done.then(() => this._inFlight.delete(execution));
  }

  /** The last run of `cellId` the port started, finished or not. */
  lastRun(cellId: string): WatchedExecution | undefined {
    return this._byCell.get(cellId);
  }

  /** Throws a NotebookPortError when `cellId` is still running from an earlier run. */
  assertNotRunning(cellId: string): void {
    if (this._byCell.get(cellId)?.finished === false) {
      throw stillRunning(cellId);
    }
  }

  /** The last run of `cellId`; throws a NotebookPortError when there is none. */
  runOf(cellId: string): WatchedExecution {
    const run = this._byCell.get(cellId);
    if (!run) {
      throw neverRun(cellId);
    }
    return run;
  }

  /** The cells whose run (started here) has not ended, in start order. */
  runningCells(): string[] {
    return [...this._inFlight]
      .filter(run => run.cellId !== null)
      .map(run => run.cellId as string);
  }

  /** True while some execution started here has not ended. */
  get busy(): boolean {
    return this._inFlight.size > 0;
  }

  /**
   * Mark every execution in flight as stopped (`aborted`); the caller
   * interrupts the kernel once for all. `byUser`: the user's Stop (a kernel
   * that ignores it is restarted, where the executions can).
   */
  stopAll(byUser: boolean): void {
    for (const run of this._inFlight) {
      run.stop('aborted', true, byUser);
    }
  }

  /** Resolves when every execution in flight now has ended. */
  async settled(): Promise<void> {
    await Promise.all([...this._inFlight].map(run => run.done));
  }

  /** Give up on every execution in flight (the kernel is gone, or the port closes). */
  abandonAll(event?: 'lost'): void {
    for (const run of this._inFlight) {
      run.abandon(event);
    }
  }

  private readonly _inFlight = new Set<WatchedExecution>();
  private readonly _byCell = new Map<string, WatchedExecution>();
}
