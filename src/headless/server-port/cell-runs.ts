/**
 * Runs of a notebook's code cells, for a ServerNotebookPort: the cell's
 * outputs kept in step with its run. Which run belongs to which cell is the
 * engine's RunTracker (src/kernel/run-tracker.ts), shared with the live port.
 */
import type { IRunOptions, IRunResult } from '../../agent/ports';
import { notCodeCell } from '../../agent/port-refusals';
import type { CellStore } from './cell-store';
import type { KernelRunner } from './kernel-runner';

/** The runs of the cells in `cells`, on `kernel`. */
export class CellRuns {
  constructor(
    private readonly _cells: CellStore,
    private readonly _kernel: KernelRunner
  ) {}

  /** Run a code cell; refuses one whose previous run is still going. */
  async run(cellId: string, options: IRunOptions): Promise<IRunResult> {
    const cell = this._cells.get(cellId);
    if (cell.type !== 'code') {
      throw notCodeCell(cellId, cell.type);
    }
    this._kernel.runs.assertNotRunning(cellId);
    await this._kernel.settled();
    if (options.signal?.aborted) {
      return { cellId, status: 'aborted', executionCount: null, outputs: [] };
    }
    const execution = this._kernel.execute(cell.source, cellId, false, run => {
      const { outputs, executionCount } = run.snapshot();
      cell.outputs = outputs;
      cell.executionCount = executionCount;
    });
    cell.outputs = [];
    cell.executionCount = null;
    cell.lastRunSource = cell.source;
    return execution.watch(options);
  }

  /** Watch the cell's last run again, finished or not. */
  async wait(cellId: string, options: IRunOptions): Promise<IRunResult> {
    return this._kernel.runs.runOf(cellId).watch(options);
  }
}
