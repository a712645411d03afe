/**
 * The refusals every INotebookPort words the same way (the fake, the live
 * and the server port): the model reads them and acts on what they say,
 * so one text each, here.
 */
import { NoSuchFileError, NotebookPortError } from './ports';

/** A cell id the notebook does not have; `path` names the notebook where known. */
export function noSuchCell(cellId: string, path?: string): NotebookPortError {
  return new NotebookPortError(noSuchCellText(cellId, path));
}

/** noSuchCell's text, for a tool that answers with it instead of throwing. */
export function noSuchCellText(cellId: string, path?: string): string {
  return (
    `There is no cell with id ${cellId}${path ? ` in ${path}` : ''} (it may ` +
    'have been deleted). Call read_notebook to see the current cell ids.'
  );
}

/** Running a cell that is not a code cell. */
export function notCodeCell(cellId: string, type: string): NotebookPortError {
  return new NotebookPortError(
    `Cell ${cellId} is a ${type} cell; only code cells run. ` +
      'Insert a code cell for the code you want to run.'
  );
}

/** Restoring the outputs of a running cell, or of one that is not code. */
export function outputsNotRestored(
  cellId: string,
  type: string
): NotebookPortError {
  return new NotebookPortError(
    `Cell ${cellId} is ${type === 'code' ? 'running' : `a ${type} cell`}: its outputs were not restored.`
  );
}

/** Running a cell whose previous run has not ended. */
export function stillRunning(cellId: string): NotebookPortError {
  return new NotebookPortError(
    `Cell ${cellId} is still running. Call wait to keep watching it, ` +
      'or interrupt_kernel to stop it, before running it again.'
  );
}

/** Waiting for a cell the agent never ran. */
export function neverRun(cellId: string): NotebookPortError {
  return new NotebookPortError(
    `Cell ${cellId} has not been run by the agent, so there is nothing ` +
      'to wait for. Call run_cell to run it.'
  );
}

/** Reading (a file) or listing (a directory) that is not there. */
export function nothingAt(
  path: string,
  what: 'file' | 'directory'
): NotebookPortError {
  return new (what === 'file' ? NoSuchFileError : NotebookPortError)(
    `There is no ${what} "${path}" (paths are relative to the Jupyter ` +
      "server's root). Call list_files on its parent directory to see " +
      'what exists.'
  );
}
