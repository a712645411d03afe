/**
 * Before Generate writes anything: finds which of its target files (the
 * notebook and the attachments) exist already and asks before replacing
 * them, so a generated notebook never silently overwrites the user's work.
 */
import type { JupyterFrontEnd } from '@jupyterlab/application';
import { Dialog, showDialog } from '@jupyterlab/apputils';
import { PathExt } from '@jupyterlab/coreutils';
import type { TranslationBundle } from '@jupyterlab/translation';
import type { IGenerateRequest } from '../../components/generate/generate-form';
import { existingPaths } from '../../kernel/path-exists';

/** Confirm replacing existing files; 'ask-again' when the user declines. */
export async function checkTargets(
  app: JupyterFrontEnd,
  directory: string,
  request: IGenerateRequest,
  trans: TranslationBundle
): Promise<'replace' | 'ask-again'> {
  const paths = [request.name, ...request.files.map(file => file.name)].map(
    name => PathExt.join(directory, name)
  );
  const existing = await existingPaths(app.serviceManager.contents, paths);
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
