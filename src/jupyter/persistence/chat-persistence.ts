/**
 * Keeps chats on the server, per notebook: saves the chat as it changes
 * (debounced), and when the user switches to another notebook, reopens
 * that notebook's latest chat (or starts a fresh one). A reload therefore
 * finds every chat where it was, and a notebook renamed while open takes
 * its chats along. A save that fails is not swallowed: the sidebar says
 * "Chat not saved" with Retry until a save succeeds.
 */
import type { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import type { IChatRecord } from '../../agent/chat-record';
import type { ChatSession } from '../../agent/session/chat-session';
import type { IChatHistory } from '../../components/config/sidebar-config';
import { ValueStore } from '../../agent/value-store';
import type { ChatStoreClient } from './chat-store';

const SAVE_DELAY_MS = 800;

export type { IChatHistory };

/** Wire saving and per-notebook reopening; returns the history menu's API. */
export function persistChats(
  session: ChatSession,
  tracker: INotebookTracker,
  client: ChatStoreClient
): IChatHistory {
  const saveError = new ValueStore<string | null>(null);
  /** Records whose last save failed, by chat id (the newest of each). */
  const unsaved = new Map<string, IChatRecord>();
  const put = async (
    record: IChatRecord,
    leaving = false
  ): Promise<boolean> => {
    try {
      await client.put(record, leaving);
      unsaved.delete(record.id);
    } catch (error) {
      unsaved.set(record.id, record);
      saveError.set(
        error instanceof Error ? error.message : String(error ?? 'failed')
      );
      return false;
    }
    if (!unsaved.size) {
      saveError.set(null);
    }
    return true;
  };

  let timer = 0;
  let savedItems = session.getSnapshot().items;
  let savedStatus = session.getSnapshot().status;
  const save = async (leaving = false) => {
    window.clearTimeout(timer);
    const state = session.getSnapshot();
    if (
      !state.items.length ||
      (state.items === savedItems && state.status === savedStatus)
    ) {
      return;
    }
    savedItems = state.items;
    savedStatus = state.status;
    if (!(await put(session.record(), leaving))) {
      // The next change, or Retry, saves it again.
      savedItems = [];
    }
  };
  session.subscribe(() => {
    // New chat or another chat reopened: save the one it replaced now.
    const closed = session.takeClosedRecord();
    if (closed) {
      void put(closed);
    }
    window.clearTimeout(timer);
    timer = window.setTimeout(() => void save(), SAVE_DELAY_MS);
  });
  // The page is going away (a reload mid-run among others): the chat as it
  // is now, in a request that outlives the page.
  window.addEventListener('beforeunload', () => void save(true));

  const pathOf = (panel: NotebookPanel | null) => panel?.context.path ?? '';
  let switching = Promise.resolve();
  const showChatOf = async (panel: NotebookPanel | null) => {
    if (!panel) {
      return;
    }
    await panel.context.ready;
    const path = pathOf(panel);
    if (session.busy || path === session.notebookPath) {
      return;
    }
    await save();
    let record: IChatRecord | null = null;
    try {
      const [latest] = await client.list(path);
      record = latest ? await client.get(latest.id) : null;
    } catch {
      // The server did not answer: a new chat for this notebook (below),
      // never the previous notebook's chat filed under this one.
    }
    // The user may have switched again (or started a run) meanwhile.
    if (pathOf(tracker.currentWidget) !== path) {
      return;
    }
    if (!record || !session.restore(record)) {
      if (!session.busy) {
        session.newChat(path);
      }
    }
    savedItems = session.getSnapshot().items;
  };
  const follow = (panel: NotebookPanel | null) => {
    switching = switching.then(() => showChatOf(panel)).catch(() => undefined);
  };
  tracker.currentChanged.connect((_, panel) => follow(panel));
  follow(tracker.currentWidget);
  // A run that worked in another notebook than the one now on screen: once
  // it ends, the sidebar shows the chat of the notebook on screen.
  let wasRunning = session.busy;
  session.subscribe(() => {
    const running = session.busy;
    if (wasRunning && !running) {
      follow(tracker.currentWidget);
    }
    wasRunning = running;
  });

  // A notebook renamed or moved while open keeps its chats: the chat on
  // screen and the saved ones are filed under its new path, so the header,
  // History and a reload all find them there. (A notebook renamed while
  // closed leaves its chats under the old name.)
  const refile = async (from: string, to: string) => {
    if (session.notebookPath === from) {
      session.notebookMoved(to);
      savedItems = [];
      await save();
    }
    let saved: Awaited<ReturnType<ChatStoreClient['list']>>;
    try {
      saved = await client.list(from);
    } catch (error) {
      saveError.set(error instanceof Error ? error.message : String(error));
      return;
    }
    for (const { id } of saved) {
      const record =
        id === session.chatId ? null : await client.get(id).catch(() => null);
      if (record?.notebook === from) {
        await put({ ...record, notebook: to });
      }
    }
  };
  const paths = new WeakMap<NotebookPanel, string>();
  const followRenames = (panel: NotebookPanel) => {
    paths.set(panel, panel.context.path);
    panel.context.pathChanged.connect((_, path) => {
      const from = paths.get(panel);
      paths.set(panel, path);
      if (from && from !== path) {
        switching = switching
          .then(() => refile(from, path))
          .catch(() => undefined);
      }
    });
  };
  tracker.widgetAdded.connect((_, panel) => followRenames(panel));
  tracker.forEach(followRenames);

  return {
    list: async () => {
      // The chat on screen is in the list too.
      await save();
      return client.list(session.notebookPath || pathOf(tracker.currentWidget));
    },
    open: async id => {
      await save();
      const record = await client.get(id);
      if (record && session.restore(record)) {
        savedItems = session.getSnapshot().items;
        // Now the latest of its notebook: a reload comes back to it.
        await put(session.record());
      }
    },
    saveError,
    retrySave: () => {
      for (const record of [...unsaved.values()]) {
        // The chat on screen is saved as it is now.
        void put(record.id === session.chatId ? session.record() : record);
      }
    }
  };
}
