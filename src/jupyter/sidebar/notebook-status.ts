/**
 * What the sidebar shows of where the user is: the notebook on screen (so a
 * run working in another one is named, not shown as this one's chat), and,
 * after a reload interrupted a run that had a cell running, whether the
 * chat's notebook kernel is still busy with it (the sidebar offers
 * Interrupt). The kernel's state is asked of the server's REST API: a page
 * that just loaded sees "unknown" on the kernel's websocket until the
 * running cell ends.
 */
import type { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import { KernelAPI, type ServerConnection } from '@jupyterlab/services';
import type { ChatSession } from '../../agent/session/chat-session';
import type { INotebookStatus } from '../../components/config/sidebar-config';
import { ValueStore, type IReadable } from '../../agent/value-store';

/** How often the kernel's state is asked while it is busy. */
const POLL_MS = 1000;
/** How long to wait for the notebook and its kernel to come back after a reload. */
const FIND_KERNEL_MS = 60_000;

/** The chat's notebook panel, if it is open. */
export function chatPanel(
  session: ChatSession,
  tracker: INotebookTracker
): NotebookPanel | null {
  return (
    tracker.find(panel => panel.context.path === session.notebookPath) ?? null
  );
}

/** The notebook status the sidebar subscribes to. */
export function notebookStatus(
  session: ChatSession,
  tracker: INotebookTracker,
  serverSettings: ServerConnection.ISettings
): IReadable<INotebookStatus> {
  const store = new ValueStore<INotebookStatus>({
    current: '',
    busyAfterReload: false
  });
  const update = (patch: Partial<INotebookStatus>) => {
    const now = store.getSnapshot();
    const next = { ...now, ...patch };
    if (
      next.current !== now.current ||
      next.busyAfterReload !== now.busyAfterReload
    ) {
      store.set(next);
    }
  };

  const showCurrent = () =>
    update({ current: tracker.currentWidget?.context.path ?? '' });
  const watchRenames = (panel: NotebookPanel) =>
    panel.context.pathChanged.connect(showCurrent);
  tracker.widgetAdded.connect((_, panel) => watchRenames(panel));
  tracker.forEach(watchRenames);
  tracker.currentChanged.connect(showCurrent);
  showCurrent();

  let watched: object | null = null;
  const watchKernel = async (run: object) => {
    const started = Date.now();
    while (watched === run) {
      const kernel = chatPanel(session, tracker)?.sessionContext.session
        ?.kernel;
      let state = '';
      if (kernel) {
        try {
          const model = await KernelAPI.getKernelModel(
            kernel.id,
            serverSettings
          );
          state = model?.execution_state ?? '';
        } catch {
          // Asked again on the next round.
        }
      }
      if (watched !== run) {
        return;
      }
      // A kernel that ran before the reload and says "starting" is still
      // busy: the reloaded page's kernel_info request waits behind the cell.
      const busy = state === 'busy' || state === 'starting';
      update({ busyAfterReload: busy });
      const done =
        (state !== '' && !busy) ||
        (state === '' && Date.now() - started > FIND_KERNEL_MS);
      if (done) {
        return;
      }
      await new Promise(resolve => setTimeout(resolve, POLL_MS));
    }
  };
  session.subscribe(() => {
    const run = session.getSnapshot().interruptedRun;
    if (run === watched) {
      return;
    }
    watched = run;
    update({ busyAfterReload: false });
    if (run?.cellIds.length) {
      void watchKernel(run);
    }
  });
  return store;
}
