/**
 * The state of a chat session: the immutable snapshot the UI reads
 * (`subscribe()` / `getSnapshot()`, React's `useSyncExternalStore`), the
 * chat's one record (chat-entries.ts), its identity, and saving/reopening
 * it (chat-record.ts). The record is owned here: the loop's items enter it
 * through `apply` (the store is the loop's `IConversation`), the session's
 * own steps (a request, a line, an answer's marks) through the named
 * methods below; the model's history and the transcript are derived from
 * it, never written. The loop's events (`dispatch`) change only what is not
 * the conversation: the reply streaming, usage, errors.
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
import {
  historyOf,
  lastCallIndex,
  messageOfEntry,
  notice,
  recordItem,
  type ChatEntry,
  type UserMessage
} from './chat-entries';
import { savedEntries, savedEntriesOf } from './saved-entries';
import { settleInterruptedRun } from './interrupted-run';
import { transcriptOf, withDraft } from './transcript';
import type { ISessionState, TranscriptItem } from './types';
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

/** The marks a session puts on the answer shown last. */
export interface IAnswerMarks {
  /** The answer's text as shown (a workflow's echo taken out; '' hides it). */
  shown?: string;
  /** Numbers it states that nothing computed. */
  notComputed?: string[];
}

/** A chat's state, its record and its identity. */
export class SessionStore implements IConversation {
  /** The model's history, derived from the record (read-only). */
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

  /** The chat's record, oldest step first (read-only). */
  get entries(): ReadonlyArray<ChatEntry> {
    return this._entries;
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

  /** The conversation, as the loop reads it (`IConversation`). */
  get messages(): ReadonlyArray<ChatMessage> {
    return this._history;
  }

  /** Keep an item a step of the loop produced (`IConversation`). */
  apply(item: TurnItem): void {
    // The reply that was streaming keeps the line it streamed in.
    const draft = this._draft;
    const newId = () =>
      item.type === 'reply' && draft ? draft.id : this.newId();
    if (item.type === 'reply') {
      this._draft = null;
    }
    const { plan } = recordItem(this._entries, item, newId);
    this._changed(plan ? { plan } : {});
  }

  /** Set the conversation's first message (the run's system prompt). */
  setSystemMessage(message: ChatMessage): void {
    const index = this._entries.findIndex(entry => messageOfEntry(entry));
    const first = index >= 0 ? messageOfEntry(this._entries[index]) : null;
    if (first?.role === 'system') {
      this._entries[index] = { kind: 'message', message };
    } else {
      this._entries.unshift({ kind: 'message', message });
    }
    this._changed();
  }

  /**
   * A request: `message` for the model, `line` for the transcript (null:
   * a Retry, whose line the transcript already has).
   */
  addPrompt(
    message: UserMessage,
    line: { kind: 'user' | 'notice'; text: string } | null
  ): void {
    this._entries.push({ kind: 'prompt', id: this.newId(), message, line });
    this._changed();
  }

  /** Mark the last message, an answer sent back for want of code, a guess (see `IConversation`). */
  markLastAsGuess(): void {
    for (let index = this._entries.length - 1; index >= 0; index -= 1) {
      const entry = this._entries[index];
      const message = messageOfEntry(entry);
      if (!message) {
        continue;
      }
      if (message.role === 'assistant' && entry.kind !== 'notice') {
        this._entries[index] = {
          ...entry,
          message: { ...message, guess: true }
        } as ChatEntry;
        this._changed();
      }
      return;
    }
  }

  /**
   * Take `message` (its last occurrence) back out of the conversation: a
   * request a Retry sends again. Its line stays in the transcript.
   */
  removeMessage(message: ChatMessage): void {
    for (let index = this._entries.length - 1; index >= 0; index -= 1) {
      const entry = this._entries[index];
      if (messageOfEntry(entry) !== message) {
        continue;
      }
      if (entry.kind === 'prompt') {
        this._entries[index] = { ...entry, message: null };
      } else {
        this._entries.splice(index, 1);
      }
      this._changed();
      return;
    }
  }

  /** The answer the transcript shows last (its own text), if it ends with one. */
  lastAnswer(): { text: string } | null {
    const index = this._lastAnswerIndex();
    const entry = index >= 0 ? this._entries[index] : null;
    return entry?.kind === 'reply'
      ? { text: entry.shown ?? entry.message?.content ?? '' }
      : null;
  }

  /** Mark the answer the transcript shows last (nothing when it ends with none). */
  markLastAnswer(marks: IAnswerMarks): void {
    const index = this._lastAnswerIndex();
    const entry = index >= 0 ? this._entries[index] : null;
    if (entry?.kind === 'reply') {
      this._entries[index] = { ...entry, ...marks };
      this._changed();
    }
  }

  /** The card of call `callId` says the file it wrote was put back. */
  markFileUndone(callId: string): void {
    const index = lastCallIndex(this._entries, callId);
    const entry = this._entries[index];
    if (entry?.kind === 'call' && entry.card.file) {
      this._entries[index] = {
        ...entry,
        card: { ...entry.card, file: { ...entry.card.file, undone: true } }
      };
      this._changed();
    }
  }

  /** Apply one of the loop's events: what is not the conversation (the record takes items, `apply`). */
  dispatch(event: AgentEvent): void {
    switch (event.type) {
      case 'text-delta':
        this._draft = {
          id: this._draft?.id ?? this.newId(),
          text: (this._draft?.text ?? '') + event.text
        };
        this._changed({}, false);
        break;
      case 'cell-start':
        this._nameRunningCard(event.cellId);
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
    this._entries.push(notice(this.newId(), text));
    this._changed();
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
      entries: savedEntries(this._entries),
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
    this._entries.splice(
      0,
      this._entries.length,
      ...(settled?.entries ?? entries)
    );
    this._draft = null;
    this._derive();
    this.context.summary = isUsableSummary(record.summary, this._history.length)
      ? record.summary
      : null;
    this._store.patch({
      ...emptyState(),
      items: this._transcript,
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
    this._entries.length = 0;
    this._draft = null;
    this._derive();
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

  /**
   * The record changed (or, `recordChanged` false, only the reply
   * streaming): derive what is derived and tell the listeners.
   */
  private _changed(
    patch: Partial<Omit<ISessionState, 'items'>> = {},
    recordChanged = true
  ): void {
    if (recordChanged) {
      this._derive();
    }
    this._store.patch({
      ...patch,
      items: withDraft(this._transcript, this._draft)
    });
  }

  /** The history and the transcript, from the record. */
  private _derive(): void {
    this._history = historyOf(this._entries);
    this._transcript = transcriptOf(this._entries);
  }

  /** The index of the reply whose text the transcript shows last, or -1. */
  private _lastAnswerIndex(): number {
    const last = this._transcript[this._transcript.length - 1];
    if (last?.kind !== 'assistant' || this._draft) {
      return -1;
    }
    for (let index = this._entries.length - 1; index >= 0; index -= 1) {
      const entry = this._entries[index];
      if (entry.kind === 'reply' && (entry.shown ?? entry.message?.content)) {
        return index;
      }
    }
    return -1;
  }

  /**
   * The running call's card names the cell it starts to run, where it did
   * not already (a cell `insert_cell` with `run: true` made is known only
   * now): a chat saved mid-run (the page went away) knows which cell the
   * kernel may still be busy with (interrupted-run.ts).
   */
  private _nameRunningCard(cellId: string): void {
    let index = this._entries.length - 1;
    while (index >= 0 && this._entries[index].kind !== 'call') {
      index -= 1;
    }
    const entry = this._entries[index];
    if (
      entry?.kind !== 'call' ||
      entry.card.status !== 'running' ||
      entry.card.cellId
    ) {
      return;
    }
    this._entries[index] = { ...entry, card: { ...entry.card, cellId } };
    this._changed();
  }

  private readonly _store = new ValueStore<ISessionState>(emptyState());
  /** The chat's one record, changed only by the methods above. */
  private readonly _entries: ChatEntry[] = [];
  /** Derived from the record: what the model reads. */
  private _history: ChatMessage[] = [];
  /** Derived from the record: what the sidebar shows (without the streaming reply). */
  private _transcript: TranscriptItem[] = [];
  /** The reply streaming now: its line's id and its text so far. */
  private _draft: { id: string; text: string } | null = null;
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
