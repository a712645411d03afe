/**
 * Asks for a provider's API key and hands it to the server, which keeps it
 * (never the browser or the notebook).
 */
import { InputDialog } from '@jupyterlab/apputils';
import type { ServerConnection } from '@jupyterlab/services';
import type { TranslationBundle } from '@jupyterlab/translation';
import type { ChatSession } from '../../agent/session/chat-session';
import { storeProviderKey, type IProviderInfo } from './server-status';

/** Ask for `provider`'s key and store it on the server; errors go to the sidebar. */
export async function askForProviderKey(
  provider: IProviderInfo,
  serverSettings: ServerConnection.ISettings,
  session: ChatSession,
  trans: TranslationBundle
): Promise<void> {
  const answer = await InputDialog.getPassword({
    title: trans.__('API key for %1', provider.name),
    label: trans.__(
      'Stored on the Jupyter server (readable only by you), never in the browser or the notebook.'
    ),
    okLabel: trans.__('OK'),
    cancelLabel: trans.__('Cancel')
  });
  if (!answer.button.accept || !answer.value) {
    return;
  }
  try {
    await storeProviderKey(serverSettings, provider.name, answer.value, trans);
    session.reportError(null);
  } catch (error) {
    session.reportError({
      kind: 'forbidden',
      message: (error as Error).message,
      hint: trans.__(
        'Ask the server’s admin to configure the key for this provider.'
      )
    });
  }
}
