/**
 * The "Generate notebook" dialog: shows the form (components/generate/generate-form)
 * in a JupyterLab dialog and turns what the user chose into a request the
 * command can act on (a prompt that is not empty, a name ending in .ipynb).
 */
import { Dialog, ReactWidget, showDialog } from '@jupyterlab/apputils';
import type { TranslationBundle } from '@jupyterlab/translation';
import React from 'react';
import {
  GenerateForm,
  notebookNameFor,
  type IGenerateRequest
} from '../../components/generate/generate-form';
import { TranslationContext } from '../../components/common/trans';

/** The dialog; null when cancelled. */
export async function askForRequest(
  initial: IGenerateRequest,
  kernels: ReadonlyArray<{ name: string; displayName: string }>,
  trans: TranslationBundle
): Promise<IGenerateRequest | null> {
  // The form reports every change, so the latest values are here when the
  // dialog closes (the dialog itself only says which button was pressed).
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
