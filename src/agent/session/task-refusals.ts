/**
 * Why a task does not start, before anything of it runs: said by the task
 * runner (runner.ts), and by the browser's chat while the runner loads
 * (src/jupyter/core/lazy-runs.ts), in the same words.
 */
import type { IAgentError } from '../types';

/** No notebook to work in. */
export const NO_NOTEBOOK: IAgentError = {
  kind: 'no-notebook',
  message: 'No notebook is open: Notebook Agent works in the active notebook.',
  hint: 'Open or create a notebook (File > New > Notebook), click into it, and ask again.'
};
