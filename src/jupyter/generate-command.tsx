/**
 * The "Generate notebook" command: ask what to build (dialog), check the
 * target file, copy attachments next to it, create and open the notebook
 * with the chosen kernel, then hand it to the agent's generate workflow,
 * saving as it grows and at the end.
 */
import type { JupyterFrontEnd } from '@jupyterlab/application';
import { Dialog, ReactWidget, showDialog } from '@jupyterlab/apputils';
import { PathExt } from '@jupyterlab/coreutils';
import type { NotebookPanel } from '@jupyterlab/notebook';
import type { TranslationBundle } from '@jupyterlab/translation';
import React from 'react';
import type { IAttachedFile } from '../agent/workflows/generate-notebook';
import type { AgentSession, IRunTarget } from '../agent/session';
import type { IAgentError } from '../agent/types';
import { toBase64 } from './upload';
import {
  GenerateForm,
  notebookNameFor,
  type IGenerateRequest
} from '../components/generate-form';
import { TranslationContext } from '../components/trans';

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

/** Seconds between saves while the notebook grows. */
const SAVE_EVERY_MS = 15_000;

/** Run the command: `args` may carry `prompt`, `path`, `kernelName`, `cwd`. */
export async function generateNotebookCommand(
  deps: IGenerateDeps,
  args: Record<string, unknown>
): Promise<void> {
  const { app, trans } = deps;
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

/** The dialog; null when cancelled. */
async function askForRequest(
  initial: IGenerateRequest,
  kernels: ReadonlyArray<{ name: string; displayName: string }>,
  trans: TranslationBundle
): Promise<IGenerateRequest | null> {
  let value = initial;
  const body = ReactWidget.create(
    <TranslationContext.Provider value={trans}>
      <GenerateForm
        initial={initial}
        kernels={kernels}
        onChange={next => (value = next)}
      />
    </TranslationContext.Provider>
  );
  const result = await showDialog({
    title: trans.__('Generate a notebook with Notebook Agent'),
    body,
    buttons: [
      Dialog.cancelButton({ label: trans.__('Cancel') }),
      Dialog.okButton({ label: trans.__('Generate') })
    ],
    focusNodeSelector: 'textarea'
  });
  if (!result.button.accept) {
    return null;
  }
  if (!value.prompt.trim()) {
    await showDialog({
      title: trans.__('Nothing to generate'),
      body: trans.__('Describe what the notebook should do.'),
      buttons: [Dialog.okButton({ label: trans.__('OK') })]
    });
    return askForRequest(value, kernels, trans);
  }
  let name = value.name.trim() || notebookNameFor(value.prompt);
  if (!name.endsWith('.ipynb')) {
    name += '.ipynb';
  }
  return { ...value, name };
}

/** Confirm replacing existing files; 'ask-again' when the user declines. */
async function checkTargets(
  app: JupyterFrontEnd,
  directory: string,
  request: IGenerateRequest,
  trans: TranslationBundle
): Promise<'replace' | 'ask-again'> {
  const paths = [request.name, ...request.files.map(file => file.name)].map(
    name => PathExt.join(directory, name)
  );
  const existing: string[] = [];
  for (const path of paths) {
    if (await exists(app, path)) {
      existing.push(path);
    }
  }
  if (!existing.length) {
    return 'replace';
  }
  const answer = await showDialog({
    title: trans.__('Replace existing files?'),
    body: trans._n(
      '%2 already exists. Replace it with the new file? Choose Back to pick another name.',
      '%2 already exist. Replace them with the new files? Choose Back to pick another name.',
      existing.length,
      existing.join(', ')
    ),
    buttons: [
      Dialog.cancelButton({ label: trans.__('Back') }),
      Dialog.warnButton({ label: trans.__('Replace') })
    ]
  });
  return answer.button.accept ? 'replace' : 'ask-again';
}

async function exists(app: JupyterFrontEnd, path: string): Promise<boolean> {
  try {
    await app.serviceManager.contents.get(path, { content: false });
    return true;
  } catch {
    return false;
  }
}

/** Create, open, and generate; errors go to the sidebar. */
async function generate(
  deps: IGenerateDeps,
  directory: string,
  request: IGenerateRequest,
  kernels: ReadonlyArray<{ name: string; displayName: string }>
): Promise<void> {
  const { app, session, trans } = deps;
  const path = PathExt.join(directory, request.name);
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
  const save = () =>
    panel.isDisposed || !panel.context.model.dirty
      ? Promise.resolve()
      : panel.context.save();
  const timer = window.setInterval(() => void save(), SAVE_EVERY_MS);
  try {
    await session.generate(request.prompt, deps.targetFor(panel), {
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
