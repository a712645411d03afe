/**
 * Commands that start a task (Generate notebook, Fix this cell) while
 * another runs: they say so at once, in the sidebar, and create nothing
 * (no notebook file, no kernel).
 */
import type { TranslationBundle } from '@jupyterlab/translation';
import type { ChatSession } from '../../agent/session/chat-session';

/**
 * True (and the sidebar, shown, says why) when a task is running, so the
 * command must not start; `then` ends the hint ("then ask for the fix again.").
 */
export function refuseWhenBusy(
  session: ChatSession,
  showSidebar: () => void,
  trans: TranslationBundle,
  then: string
): boolean {
  if (!session.busy) {
    return false;
  }
  showSidebar();
  session.reportError({
    kind: 'unknown',
    message: trans.__(
      'Notebook Agent is busy with another task: nothing was created or changed.'
    ),
    hint: trans.__('Wait for it to finish, or press Stop, %1', then)
  });
  return true;
}
