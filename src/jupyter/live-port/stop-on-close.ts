/**
 * When the user closes the notebook the agent is working in, the run stops
 * at once (instead of failing tool call after tool call), and the sidebar
 * says why. Nothing else is touched: closing asked the user about unsaved
 * changes already.
 */
import type { NotebookPanel } from '@jupyterlab/notebook';
import type { TranslationBundle } from '@jupyterlab/translation';
import type { ChatSession } from '../../agent/session/chat-session';

const watched = new WeakSet<NotebookPanel>();

/** Watch `panel` (once) for being closed during a run in it. */
export function stopWhenClosed(
  session: ChatSession,
  panel: NotebookPanel | null,
  trans: TranslationBundle
): void {
  if (!panel || watched.has(panel)) {
    return;
  }
  watched.add(panel);
  const path = panel.context.path;
  panel.disposed.connect(() => {
    if (
      session.getSnapshot().status !== 'running' ||
      session.notebookPath !== path
    ) {
      return;
    }
    session.stop();
    // The stopped run clears the error when it ends: report after it.
    const unsubscribe = session.subscribe(() => {
      if (session.getSnapshot().status === 'idle') {
        unsubscribe();
        session.reportError({
          kind: 'no-notebook',
          message: trans.__(
            '%1 was closed while the agent was working in it, so the agent stopped.',
            path
          ),
          hint: trans.__(
            'Reopen the notebook and ask again to continue; the chat is kept.'
          )
        });
      }
    });
  });
}
