/**
 * Generate's run, once the request is settled: copies the attachments next
 * to the new notebook, creates and opens it with the chosen kernel, waits
 * for the kernel, then hands it to the agent's generate workflow, saving as
 * it grows and at the end. Failures go to the sidebar, which it opens
 * first.
 */
import { PathExt } from '@jupyterlab/coreutils';
import type { NotebookPanel } from '@jupyterlab/notebook';
import type { TranslationBundle } from '@jupyterlab/translation';
import type { IAttachedFile } from '../../agent/workflows/generate-notebook';
import type { IAgentError } from '../../agent/types';
import type { IGenerateRequest } from '../../components/generate/generate-form';
import type { JupyterFrontEnd } from '@jupyterlab/application';
import { refuseWhenBusy } from '../core/busy';
import type { IAgentRuns } from '../core/parts';
import { toBase64 } from '../core/upload';
import { panelSaver } from '../persistence/panel-saver';

/** What the command needs from the plugin. */
export interface IGenerateDeps {
  app: JupyterFrontEnd;
  /** The chat and its tasks. */
  runs: IAgentRuns;
  /** Directory new notebooks go to (the file browser's), '' for the root. */
  directory: () => string;
  showSidebar: () => void;
  /** Translates the dialogs and messages. */
  trans: TranslationBundle;
}

/** Seconds between saves while the notebook grows. */
const SAVE_EVERY_MS = 15_000;

/** Create, open, and generate; errors go to the sidebar. */
export async function generate(
  deps: IGenerateDeps,
  directory: string,
  request: IGenerateRequest,
  kernels: ReadonlyArray<{ name: string; displayName: string }>
): Promise<void> {
  const { app, trans } = deps;
  const { session } = deps.runs;
  const path = PathExt.join(directory, request.name);
  // A run may have started while the dialog was open.
  if (
    refuseWhenBusy(
      session,
      deps.showSidebar,
      trans,
      trans.__('then run Generate notebook again.')
    )
  ) {
    return;
  }
  deps.showSidebar();
  if (!kernels.some(kernel => kernel.name === request.kernelName)) {
    session.reportError(
      failure(
        trans.__(
          'The kernel "%1" is not installed, so %2 was not created.',
          request.kernelName,
          path
        ),
        kernels.length
          ? trans.__('Choose one of: %1.', kernels.map(k => k.name).join(', '))
          : trans.__('No kernels are installed.')
      )
    );
    return;
  }
  const attachments: IAttachedFile[] = [];
  try {
    for (const file of request.files) {
      await app.serviceManager.contents.save(
        PathExt.join(directory, file.name),
        {
          type: 'file',
          format: 'base64',
          content: await toBase64(file)
        }
      );
      attachments.push({ name: file.name, size: file.size });
    }
    await app.serviceManager.contents.save(path, {
      type: 'notebook',
      format: 'json',
      content: emptyNotebook(request.kernelName, kernels)
    });
  } catch (error) {
    session.reportError(
      failure(
        trans.__('Could not write %1: %2', path, (error as Error).message),
        trans.__(
          'Check that the directory exists and is writable, then try again.'
        )
      )
    );
    return;
  }
  const panel = (await app.commands.execute('docmanager:open', {
    path,
    factory: 'Notebook',
    kernel: { name: request.kernelName }
  })) as NotebookPanel;
  await panel.context.ready;
  const kernelError = await kernelStarted(panel, trans);
  if (kernelError) {
    session.reportError(
      failure(
        trans.__(
          'The kernel "%1" did not start (%2). %3 was created, empty.',
          request.kernelName,
          kernelError,
          path
        ),
        trans.__(
          'Pick another kernel in the notebook (Kernel > Change Kernel…) or fix the kernel, then run Generate again.'
        )
      )
    );
    return;
  }
  // A failed save must not turn a generation that worked into a failed command.
  const save = panelSaver(panel, error =>
    session.notice(
      trans.__(
        'Could not save %1: %2. The notebook stays open with its changes; save it yourself (Ctrl+S).',
        path,
        error
      )
    )
  );
  const timer = window.setInterval(() => void save(), SAVE_EVERY_MS);
  try {
    await deps.runs.generate(request.prompt, panel, {
      attachments,
      approvalMode: request.runWithoutAsking ? 'run-everything' : undefined
    });
  } finally {
    window.clearInterval(timer);
    await save();
  }
}

/** Null when the kernel is up; else why not (waits up to a minute). */
async function kernelStarted(
  panel: NotebookPanel,
  trans: TranslationBundle
): Promise<string | null> {
  const context = panel.sessionContext;
  try {
    await context.ready;
  } catch (error) {
    return (error as Error).message;
  }
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const kernel = context.session?.kernel;
    if (!kernel) {
      return trans.__('no kernel is attached');
    }
    if (kernel.status === 'dead') {
      return trans.__('the kernel died while starting');
    }
    if (kernel.status === 'idle' || kernel.status === 'busy') {
      return null;
    }
    await new Promise(resolve => setTimeout(resolve, 200));
  }
  return trans.__('it did not become ready within a minute');
}

function emptyNotebook(
  kernelName: string,
  kernels: ReadonlyArray<{ name: string; displayName: string }>
): Record<string, unknown> {
  const spec = kernels.find(kernel => kernel.name === kernelName);
  return {
    cells: [],
    metadata: {
      kernelspec: {
        name: kernelName,
        display_name: spec?.displayName ?? kernelName
      }
    },
    nbformat: 4,
    nbformat_minor: 5
  };
}

function failure(message: string, hint: string): IAgentError {
  return { kind: 'unknown', message, hint };
}
