/**
 * The state of a chat session: the immutable snapshot the UI reads
 * (`subscribe()` / `getSnapshot()`, React's `useSyncExternalStore`), the
 * chat's one record (`log`, chat-log.ts: the model's history and the
 * transcript derived from it), its identity, and saving/reopening it
 * (chat-record.ts). The loop's items enter the record through `apply` (the
 * store is the loop's `IConversation`), the session's own steps through
 * the log's named methods. The loop's events (`dispatch`) change only what
 * is not the conversation: the reply streaming, a running card's cell,
 * usage, errors.
 */
import {
  CHAT_RECORD_VERSION,
  chatTitle,
  newChatId,
  type IChatRecord
} from '../chat-record';
import { isUsableSummary, type ISummarySlot } from '../context/summary-slot';
import type { IConversation } from '../loop/conversation';
import type { TurnItem } from '../loop/turn-items';
import type { AgentEvent, ChatMessage, IAgentError } from '../types';
import type { ChatEntry } from './chat-entries';
import { ChatLog } from './chat-log';
import { settleInterruptedRun } from './interrupted-run';
import { savedEntries, savedEntriesOf } from './saved-entries';
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

/** A chat's state, its record and its identity. */
export class SessionStore implements IConversation {
  /** The chat's one record: its entries, with what is derived from them. */
  readonly log: ChatLog = new ChatLog(
    () => this.newId(),
    ({ plan }) =>
      this._store.patch({ items: this.log.items, ...(plan ? { plan } : {}) })
  );
  /** The summary of the history's older messages, as the model reads them (saved too). */
  readonly context: ISummarySlot = { summary: null };
  /** The notebook this chat belongs to ('' before its first run). */
  notebookPath = '';

  /** The model's history, derived from the record (read-only). */
  get history(): ReadonlyArray<ChatMessage> {
    return this.log.messages;
  }

  /** The conversation, as the loop reads it (`IConversation`). */
  get messages(): ReadonlyArray<ChatMessage> {
    return this.log.messages;
  }

  /** Keep an item a step of the loop produced (`IConversation`). */
  apply(item: TurnItem): void {
    this.log.apply(item);
  }

  /** Mark the last message a guess (`IConversation`). */
  markLastAsGuess(): void {
    this.log.markLastAsGuess();
  }

  /** Register a listener; returns the function that removes it. */
  subscribe = (listener: () => void): (() => void) =>
    this._store.subscribe(listener);

  /** The current immutable snapshot. */
  getSnapshot = (): ISessionState => this._store.getSnapshot();

  /** This chat's id (its file on the server). */
  get chatId(): string {
    return this._chatId;
  }

  /** Change the state (not the transcript: it is derived) and tell the listeners. */
  set(patch: Partial<Omit<ISessionState, 'items'>>): void {
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

  /** Apply one of the loop's events: what is not the conversation (the record takes items, `apply`). */
  dispatch(event: AgentEvent): void {
    switch (event.type) {
      case 'text-delta':
        this.log.stream(event.text);
        break;
      case 'cell-start':
        this.log.nameRunningCard(event.cellId);
        break;
      case 'usage': {
        const { usage } = this._state;
        this.set({
          usage: {
            promptTokens: usage.promptTokens + event.usage.promptTokens,
            completionTokens:
              usage.completionTokens + event.usage.completionTokens
          }
        });
        break;
      }
      case 'end':
        this.set({ error: event.error ?? null, pendingApproval: null });
        break;
      case 'tool-call':
      case 'tool-result':
      case 'notice':
      case 'context-summary':
        // Derived from an item the record already holds.
        break;
      default: {
        const unhandled: never = event;
        throw new Error(`No case for the event ${JSON.stringify(unhandled)}.`);
      }
    }
    for (const listener of this._eventListeners) {
      listener(event);
    }
  }

  /** Add a notice to the transcript. */
  notice(text: string): void {
    this.log.notice(text);
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

  /** The chat as saved on the server: its record, once. */
  record(): IChatRecord {
    const state = this._state;
    return {
      version: CHAT_RECORD_VERSION,
      id: this._chatId,
      notebook: this.notebookPath,
      title: chatTitle(state.items),
      created: this._created,
      updated: this._updated(),
      entries: savedEntries(this.log.entries),
      usage: state.usage,
      plan: state.plan ? [...state.plan] : null,
      choice: state.choice,
      running: state.status === 'running',
      summary: this.context.summary
    };
  }

  /**
   * Reopen a saved chat (refused while a run is in progress); a chat saved
   * before the one record (its transcript and history apart) is converted.
   */
  restore(record: IChatRecord): boolean {
    if (this._state.status === 'running') {
      return false;
    }
    this._keepClosed();
    this._chatId = record.id;
    this._created = record.created ?? Date.now();
    this.notebookPath = record.notebook;
    const entries = savedEntriesOf(record);
    // New items must not reuse the saved ones' ids.
    this._nextId = Math.max(0, ...entries.map(entryNumber));
    // Saved mid-run by a page that went away: that run is over.
    const settled = settleInterruptedRun({ ...record, entries }, () =>
      this.newId()
    );
    this.log.reset(settled?.entries ?? entries);
    this.context.summary = isUsableSummary(
      record.summary,
      this.log.messages.length
    )
      ? record.summary
      : null;
    this._store.patch({
      ...emptyState(),
      items: this.log.items,
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
    this.log.reset([]);
    this.context.summary = null;
    this._store.patch(emptyState());
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
  private readonly _eventListeners = new Set<(event: AgentEvent) => void>();
  private _nextId = 0;
  private _chatId = newChatId();
  private _created = Date.now();
  private _lastUpdated = 0;
  /** The chat just replaced by newChat/restore, until taken (to be saved). */
  private _closed: IChatRecord | null = null;
}

/** The number of an entry's line id (`item-7`: 7), so new ids follow the saved ones. */
function entryNumber(entry: ChatEntry): number {
  const id =
    entry.kind === 'message'
      ? ''
      : entry.kind === 'call'
        ? entry.card.id
        : entry.kind === 'notice'
          ? entry.notice.id
          : entry.id;
  return Number(/^item-(\d+)$/.exec(id)?.[1] ?? 0);
}
