/**
 * The "Generate notebook" command: ask what to build (generate-dialog), check
 * the target files (generate-targets), then create the notebook and run the
 * agent's generate workflow in it (generate-run). Loaded on first use by
 * agent-commands.ts, so none of this is in the start-up bundle.
 */
import type { JupyterFrontEnd } from '@jupyterlab/application';
import type { NotebookPanel } from '@jupyterlab/notebook';
import type { TranslationBundle } from '@jupyterlab/translation';
import type { AgentSession, IRunTarget } from '../agent/session';
import {
  notebookNameFor,
  type IGenerateRequest
} from '../components/generate-form';
import { refuseWhenBusy } from './busy';
import { askForRequest } from './generate-dialog';
import { generate } from './generate-run';
import { checkTargets } from './generate-targets';

/** What the command needs from the plugin. */
export interface IGenerateDeps {
  app: JupyterFrontEnd;
  session: AgentSession;
  /** The run target for a notebook panel (model + port). */
  targetFor: (panel: NotebookPanel) => IRunTarget;
  /** Directory new notebooks go to (the file browser's), '' for the root. */
  directory: () => string;
  showSidebar: () => void;
  /** Translates the dialogs and messages. */
  trans: TranslationBundle;
}

/** Run the command: `args` may carry `prompt`, `path`, `kernelName`, `cwd`. */
export async function generateNotebookCommand(
  deps: IGenerateDeps,
  args: Record<string, unknown>
): Promise<void> {
  const { app, trans } = deps;
  // Busy: say so at once, before any dialog, file or kernel.
  if (busy(deps)) {
    return;
  }
  const specs = await app.serviceManager.kernelspecs.ready.then(
    () => app.serviceManager.kernelspecs.specs
  );
  const kernels = Object.values(specs?.kernelspecs ?? {}).map(spec => ({
    name: spec!.name,
    displayName: spec!.display_name
  }));
  const prompt = typeof args.prompt === 'string' ? args.prompt : '';
  let request: IGenerateRequest | null = {
    prompt,
    name:
      typeof args.path === 'string' && args.path
        ? args.path
        : prompt
          ? notebookNameFor(prompt)
          : '',
    kernelName:
      typeof args.kernelName === 'string'
        ? args.kernelName
        : (specs?.default ?? kernels[0]?.name ?? ''),
    files: [],
    runWithoutAsking: true
  };
  const directory = typeof args.cwd === 'string' ? args.cwd : deps.directory();
  // With a prompt in the arguments, start at once; otherwise (and after a
  // refused overwrite) ask with the dialog.
  let ask = !prompt;
  for (;;) {
    if (ask) {
      request = await askForRequest(request, kernels, trans);
      if (!request) {
        return;
      }
    }
    ask = true;
    const checked = await checkTargets(app, directory, request, trans);
    if (checked === 'replace') {
      break;
    }
  }
  await generate(deps, directory, request, kernels);
}

/** Whether a task runs (the sidebar then says Generate cannot start). */
function busy(deps: IGenerateDeps): boolean {
  return refuseWhenBusy(
    deps.session,
    deps.showSidebar,
    deps.trans,
    deps.trans.__('then run Generate notebook again.')
  );
}
