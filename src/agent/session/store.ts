/**
 * The state of a chat session: the immutable snapshot the UI reads
 * (`subscribe()` / `getSnapshot()`, React's `useSyncExternalStore`), the
 * model conversation, the chat's identity, and saving/reopening it
 * (chat-record.ts). The loop's events change it through the reducer
 * (reducer.ts); the task runner (runner.ts) is what dispatches them. The
 * conversation is owned here: read-only outside, changed only through the
 * named methods below (the loop gets them as its `IConversation`).
 */
import {
  CHAT_RECORD_VERSION,
  chatTitle,
  newChatId,
  withoutImages,
  type IChatRecord
} from '../chat-record';
import { isUsableSummary, type ISummarySlot } from '../context/summary-slot';
import { dropImages } from '../tool-images';
import { markLastAsGuess, type IConversation } from '../loop/conversation';
import type { AgentEvent, ChatMessage, IAgentError } from '../types';
import { settleInterruptedRun } from './interrupted-run';
import { applyEvent } from './reducer';
import type { ISessionState } from './types';
import { ValueStore } from '../value-store';

/** The state of a chat with nothing in it. */
function emptyState(): ISessionState {
  return {
    items: [],
    status: 'idle',
    error: null,
    usage: { promptTokens: 0, completionTokens: 0 },
    lastTurn: null,
    pendingApproval: null,
    plan: null,
    review: null,
    choice: null,
    interruptedRun: null
  };
}

/** A chat's state, its conversation and its identity. */
export class SessionStore implements IConversation {
  /** The model conversation (read-only: changed through the methods below). */
  get history(): ReadonlyArray<ChatMessage> {
    return this._history;
  }
  /** The summary of the history's older messages, as the model reads them (saved too). */
  readonly context: ISummarySlot = { summary: null };
  /** The notebook this chat belongs to ('' before its first run). */
  notebookPath = '';

  /** Register a listener; returns the function that removes it. */
  subscribe = (listener: () => void): (() => void) =>
    this._store.subscribe(listener);

  /** The current immutable snapshot. */
  getSnapshot = (): ISessionState => this._store.getSnapshot();

  /** This chat's id (its file on the server). */
  get chatId(): string {
    return this._chatId;
  }

  /** Change the state and tell the listeners. */
  set(patch: Partial<ISessionState>): void {
    this._store.patch(patch);
  }

  /**
   * Register a listener for the loop's events as they are applied (e.g. to
   * save the notebook after an agent edit); returns the function that
   * removes it.
   */
  subscribeEvents = (listener: (event: AgentEvent) => void): (() => void) => {
    this._eventListeners.add(listener);
    return () => this._eventListeners.delete(listener);
  };

  /** The conversation, as the loop reads it (`IConversation`). */
  get messages(): ReadonlyArray<ChatMessage> {
    return this._history;
  }

  /** Set the conversation's first message (the run's system prompt). */
  setSystemMessage(message: ChatMessage): void {
    this._history[0] = message;
  }

  /** Add messages at the end of the conversation. */
  appendMessages(...messages: ChatMessage[]): void {
    this._history.push(...messages);
  }

  /** Mark the last message, an answer sent back for want of code, a guess (see `IConversation`). */
  markLastAsGuess(): void {
    markLastAsGuess(this._history);
  }

  /** Take `message` (its last occurrence) back out of the conversation: a request a Retry sends again. */
  removeMessage(message: ChatMessage): void {
    const index = this._history.lastIndexOf(message);
    if (index >= 0) {
      this._history.splice(index, 1);
    }
  }

  /** Apply one of the loop's events (the reducer decides what it changes). */
  dispatch(event: AgentEvent): void {
    this.set(applyEvent(this._state, event, () => this.newId()));
    if (event.type === 'end') {
      this.set({ error: event.error ?? null, pendingApproval: null });
    }
    for (const listener of this._eventListeners) {
      listener(event);
    }
  }

  /** Add a notice to the transcript. */
  notice(text: string): void {
    this.set({
      items: [...this._state.items, { kind: 'notice', id: this.newId(), text }]
    });
  }

  /** Show an error (null clears it). */
  reportError(error: IAgentError | null): void {
    this.set({ error });
  }

  /** A new transcript item id. */
  newId(): string {
    this._nextId += 1;
    return `item-${this._nextId}`;
  }

  /** The chat as saved on the server. */
  record(): IChatRecord {
    const state = this._state;
    return {
      version: CHAT_RECORD_VERSION,
      id: this._chatId,
      notebook: this.notebookPath,
      title: chatTitle(state.items),
      created: this._created,
      updated: this._updated(),
      // Image data is dropped from saved chats (the cards count the images
      // instead): the whole record is saved again after every change and the
      // server takes at most 20 MB; the cells keep the full images.
      items: state.items.map(item =>
        item.kind === 'tool' ? dropImages(item) : item
      ),
      history: withoutImages(this.history),
      usage: state.usage,
      plan: state.plan ? [...state.plan] : null,
      choice: state.choice,
      running: state.status === 'running',
      summary: this.context.summary
    };
  }

  /** Reopen a saved chat (refused while a run is in progress). */
  restore(record: IChatRecord): boolean {
    if (this._state.status === 'running') {
      return false;
    }
    this._keepClosed();
    this._chatId = record.id;
    this._created = record.created ?? Date.now();
    this.notebookPath = record.notebook;
    // New items must not reuse the saved ones' ids.
    this._nextId = Math.max(
      0,
      ...record.items.map(item =>
        Number(/^item-(\d+)$/.exec(item.id)?.[1] ?? 0)
      )
    );
    // Saved mid-run by a page that went away: that run is over.
    const settled = settleInterruptedRun(record, () => this.newId());
    this._history.splice(
      0,
      this._history.length,
      ...(settled?.history ?? record.history)
    );
    this.context.summary = isUsableSummary(record.summary, this._history.length)
      ? record.summary
      : null;
    this.set({
      ...emptyState(),
      items: settled?.items ?? record.items,
      interruptedRun: settled ? { cellIds: settled.cellIds } : null,
      usage: record.usage ?? { promptTokens: 0, completionTokens: 0 },
      plan: record.plan ?? null,
      choice: record.choice ?? null
    });
    return true;
  }

  /** The chat's notebook was renamed or moved to `path`: the chat goes with it. */
  moveNotebook(path: string): void {
    if (path !== this.notebookPath) {
      this.notebookPath = path;
      this.set({});
    }
  }

  /** Forget the conversation; `notebook` names the new chat's notebook. */
  newChat(notebook = this.notebookPath): void {
    this._keepClosed();
    this._chatId = newChatId();
    this._created = Date.now();
    this.notebookPath = notebook;
    this._history.length = 0;
    this.context.summary = null;
    this.set(emptyState());
  }

  /**
   * The chat that New chat (or reopening another) just replaced, once:
   * whoever saves chats saves it, so its last changes are not lost.
   */
  takeClosedRecord(): IChatRecord | null {
    const closed = this._closed;
    this._closed = null;
    return closed;
  }

  /**
   * Now, but always later than this store's previous record: the chat
   * reopened right after New chat (or History) replaced another must be the
   * newer of the two, even within one millisecond, or a reload may come
   * back to the other.
   */
  private _updated(): number {
    this._lastUpdated = Math.max(Date.now(), this._lastUpdated + 1);
    return this._lastUpdated;
  }

  private _keepClosed(): void {
    if (this._state.items.length) {
      this._closed = this.record();
    }
  }

  private get _state(): ISessionState {
    return this._store.getSnapshot();
  }

  private readonly _store = new ValueStore<ISessionState>(emptyState());
  /** The model conversation, changed only by the methods above. */
  private readonly _history: ChatMessage[] = [];
  private readonly _eventListeners = new Set<(event: AgentEvent) => void>();
  private _nextId = 0;
  private _chatId = newChatId();
  private _created = Date.now();
  private _lastUpdated = 0;
  /** The chat just replaced by newChat/restore, until taken (to be saved). */
  private _closed: IChatRecord | null = null;
}
