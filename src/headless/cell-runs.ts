/**
 * Runs of a notebook's code cells, for a ServerNotebookPort: which run
 * belongs to which cell, and the cell's outputs kept in step with it.
 *
 * The last run of each cell is kept after it ends, because the model may
 * wait for a run that finished after its previous wait returned `running`.
 */
import {
  NotebookPortError,
  type IRunOptions,
  type IRunResult
} from '../agent/ports';
import type { CellStore } from './cell-store';
import type { WatchedExecution } from './execution';
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
      throw new NotebookPortError(
        `Cell ${cellId} is a ${cell.type} cell; only code cells run. ` +
          'Insert a code cell for the code you want to run.'
      );
    }
    if (this._runs.get(cellId)?.finished === false) {
      throw new NotebookPortError(
        `Cell ${cellId} is still running. Call wait to keep watching it, ` +
          'or interrupt_kernel to stop it, before running it again.'
      );
    }
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
    this._runs.set(cellId, execution);
    return execution.watch(options);
  }

  /** Watch the cell's last run again, finished or not. */
  async wait(cellId: string, options: IRunOptions): Promise<IRunResult> {
    const execution = this._runs.get(cellId);
    if (!execution) {
      throw new NotebookPortError(
        `Cell ${cellId} has not been run by the agent, so there is nothing ` +
          'to wait for. Call run_cell to run it.'
      );
    }
    return execution.watch(options);
  }

  private readonly _runs = new Map<string, WatchedExecution>();
}
