/**
 * Verification of a generated notebook: restart the kernel and run every
 * code cell from the top, as a reader would. A notebook that only worked
 * because of hidden kernel state fails here, and the failure goes back to
 * the agent.
 */
import { formatRunResult } from '../context/observations';
import type { INotebookPort, IRunOptions } from '../ports';

/** How verification went. */
export interface IVerification {
  ok: boolean;
  /** Code cells that ran (all of them when ok). */
  ran: number;
  /** Code cells in the notebook. */
  total: number;
  /** The cell that failed, and what it showed. */
  failure?: {
    cellId: string;
    index: number;
    source: string;
    observation: string;
  };
}

/** Restart the kernel, then run all code cells in order; stop at the first failure. */
export async function verifyNotebook(
  notebook: INotebookPort,
  options: IRunOptions = {}
): Promise<IVerification> {
  await notebook.restartKernel();
  const cells = (await notebook.getCells()).filter(c => c.type === 'code');
  let ran = 0;
  for (const [index, cell] of cells.entries()) {
    if (options.signal?.aborted) {
      break;
    }
    // No soft timeout: verification waits for each cell (up to the hard limit).
    const result = await notebook.runCell(cell.id, {
      signal: options.signal,
      hardTimeoutMs: options.hardTimeoutMs
    });
    ran += 1;
    if (result.status !== 'ok') {
      return {
        ok: false,
        ran,
        total: cells.length,
        failure: {
          cellId: cell.id,
          index,
          source: cell.source,
          observation: formatRunResult(result)
        }
      };
    }
  }
  return { ok: ran === cells.length, ran, total: cells.length };
}
