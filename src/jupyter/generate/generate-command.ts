/**
 * The "Generate notebook" command: ask what to build (generate-dialog), check
 * the target files (generate-targets), then create the notebook and run the
 * agent's generate workflow in it (generate-run). Loaded on first use by
 * ../commands/agent-commands.ts, so none of this is in the start-up bundle.
 */
import {
  notebookNameFor,
  type IGenerateRequest
} from '../../components/generate/generate-form';
import { refuseWhenBusy } from '../core/busy';
import { askForRequest } from './generate-dialog';
import { generate, type IGenerateDeps } from './generate-run';
import { checkTargets } from './generate-targets';

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
    deps.runs.session,
    deps.showSidebar,
    deps.trans,
    deps.trans.__('then run Generate notebook again.')
  );
}
