/**
 * Keeps chats on the server, per notebook: saves the chat as it changes
 * (debounced), and when the user switches to another notebook, reopens
 * that notebook's latest chat (or starts a fresh one). A reload therefore
 * finds every chat where it was.
 */
import type { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import type { AgentSession } from '../agent/session';
import type { ChatStoreClient } from './chat-store';

const SAVE_DELAY_MS = 800;

/** What the sidebar's history menu needs. */
export interface IChatHistory {
  /** Chats of the current notebook, newest first. */
  list: () => ReturnType<ChatStoreClient['list']>;
  /** Reopen a chat. */
  open: (id: string) => Promise<void>;
}

/** Wire saving and per-notebook reopening; returns the history menu's API. */
export function persistChats(
  session: AgentSession,
  tracker: INotebookTracker,
  client: ChatStoreClient
): IChatHistory {
  let timer = 0;
  let savedItems = session.getSnapshot().items;
  let savedStatus = session.getSnapshot().status;
  const save = async () => {
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
    try {
      await client.put(session.record());
    } catch {
      // Saving is best effort: the chat stays in the page; the next change retries.
      savedItems = [];
    }
  };
  session.subscribe(() => {
    // New chat or another chat reopened: save the one it replaced now.
    const closed = session.takeClosedRecord();
    if (closed) {
      void client.put(closed).catch(() => undefined);
    }
    window.clearTimeout(timer);
    timer = window.setTimeout(() => void save(), SAVE_DELAY_MS);
  });
  window.addEventListener('beforeunload', () => void save());

  const pathOf = (panel: NotebookPanel | null) => panel?.context.path ?? '';
  let switching = Promise.resolve();
  const showChatOf = async (panel: NotebookPanel | null) => {
    if (!panel) {
      return;
    }
    await panel.context.ready;
    const path = pathOf(panel);
    if (
      session.getSnapshot().status === 'running' ||
      path === session.notebookPath
    ) {
      return;
    }
    await save();
    const [latest] = await client.list(path);
    const record = latest ? await client.get(latest.id) : null;
    // The user may have switched again (or started a run) meanwhile.
    if (pathOf(tracker.currentWidget) !== path) {
      return;
    }
    if (!record || !session.restore(record)) {
      if (session.getSnapshot().status !== 'running') {
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
        await client.put(session.record()).catch(() => undefined);
      }
    }
  };
}
