/**
 * Saving at the end of a command-line run without ever overwriting a change
 * someone made to the notebook file meanwhile: when the file changed on disk,
 * the agent's notebook goes to a copy next to it, and the caller says so.
 */
import { NotebookConflictError } from '../server-port/disk-version';
import type { ServerNotebookPort } from '../server-port/server-port';

/** Where the notebook was written. */
export interface ISaveOutcome {
  /** Server path written (the notebook's own, or the copy's). */
  path: string;
  /** True when the file had changed on disk and a copy was written instead. */
  copy: boolean;
}

/** Save `port`, or, on a conflict, write `<name>.agent.ipynb` (or -2, -3…) beside it. */
export async function saveOrCopy(
  port: ServerNotebookPort
): Promise<ISaveOutcome> {
  try {
    await port.save();
    return { path: port.path, copy: false };
  } catch (error) {
    if (!(error instanceof NotebookConflictError)) {
      throw error;
    }
  }
  const stem = port.path.replace(/\.ipynb$/, '');
  for (let n = 1; n < 100; n++) {
    const path = `${stem}.agent${n > 1 ? `-${n}` : ''}.ipynb`;
    try {
      await port.saveCopy(path);
      return { path, copy: true };
    } catch (error) {
      if (!/already exists/.test((error as Error).message)) {
        throw error;
      }
    }
  }
  throw new Error(`Could not find a free name for a copy of ${port.path}.`);
}

/** The message for a run whose notebook went to a copy. */
export function conflictMessage(notebook: string, copy: string): string {
  return (
    `notebook-agent: ${notebook} changed on disk while the agent worked, so it was ` +
    `left as it is; the agent's notebook was saved as ${copy}.`
  );
}
