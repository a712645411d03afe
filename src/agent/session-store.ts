/**
 * The store side of a chat session: the immutable snapshot the UI reads
 * (`subscribe()` / `getSnapshot()`, React's `useSyncExternalStore`), the
 * model conversation, and saving/reopening the chat (chat-record.ts).
 * AgentSession (session.ts) adds the runs.
 */
import type { IApprovalRequest } from './loop/approval';
import type { IModelClient } from './model/types';
import type { INotebookPort } from './ports';
import {
  CHAT_RECORD_VERSION,
  chatTitle,
  newChatId,
  withoutImages,
  type IChatRecord
} from './chat-record';
import { dropImages, type IToolImage } from './tool-images';
import type { ChatMessage, IAgentError, IPlanStep, IUsage } from './types';
import type { ICellChange } from './workflows/cell-changes';
import type { IFixResult } from './workflows/fix-cell';

/** One entry of the visible transcript. */
export type TranscriptItem =
  | { kind: 'user'; id: string; text: string }
  | { kind: 'assistant'; id: string; text: string }
  | {
      kind: 'tool';
      id: string;
      name: string;
      arguments: string;
      status: 'running' | 'done' | 'error';
      output?: string;
      cellId?: string;
      durationMs?: number;
      /** Images the outputs showed, for thumbnails (bounded: tool-images.ts). */
      images?: IToolImage[];
      /** Images not shown on the card (over the caps, or not kept in a saved chat). */
      moreImages?: number;
    }
  | { kind: 'notice'; id: string; text: string };

/** Everything the UI shows. */
export interface ISessionState {
  items: ReadonlyArray<TranscriptItem>;
  status: 'idle' | 'running';
  error: IAgentError | null;
  usage: IUsage;
  /** Tokens of the last task (a prompt, a generation, a fix), for the header. */
  lastTurn: IUsage | null;
  /** A call waiting for the user's approval. */
  pendingApproval: IApprovalRequest | null;
  /** The agent's plan, as it last stated it (update_plan). */
  plan: ReadonlyArray<IPlanStep> | null;
  /** A fix waiting for the user's Accept or Reject. */
  review: IFixReview | null;
  /** This chat's provider and model; null: the defaults from the settings. */
  choice: IModelChoice | null;
}

/** A chat's choice of provider and model ('' = the provider's default model). */
export interface IModelChoice {
  provider: string;
  model: string;
}

/** The changes of a "Fix this cell" run, for the user to accept or reject. */
export interface IFixReview {
  cellId: string;
  status: IFixResult['status'];
  attempts: number;
  changes: ReadonlyArray<ICellChange>;
  /** The cell's remaining problem, when it is not fixed. */
  problem?: string;
}

/** What a run needs from the outside world. */
export interface IRunTarget {
  /** Builds the model client; may throw a `ModelConfigError`. */
  model: () => IModelClient;
  /** The notebook to work in; null when none is open. */
  notebook: INotebookPort | null;
}

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
    choice: null
  };
}

/** A chat's state, its conversation and its identity. */
export class SessionStore {
  protected _state: ISessionState = emptyState();
  protected _listeners = new Set<() => void>();
  protected _history: ChatMessage[] = [];
  protected _nextId = 0;
  protected _chatId = newChatId();
  protected _created = Date.now();
  protected _notebookPath = '';
  /** The chat just replaced by newChat/restore, until taken (to be saved). */
  private _closed: IChatRecord | null = null;

  /** Register a listener; returns the function that removes it. */
  subscribe = (listener: () => void): (() => void) => {
    this._listeners.add(listener);
    return () => this._listeners.delete(listener);
  };

  /** The current immutable snapshot. */
  getSnapshot = (): ISessionState => this._state;

  /** The model conversation (for tests and persistence). */
  get history(): ReadonlyArray<ChatMessage> {
    return this._history;
  }

  /** This chat's id (its file on the server). */
  get chatId(): string {
    return this._chatId;
  }

  /** The notebook this chat belongs to ('' before its first run). */
  get notebookPath(): string {
    return this._notebookPath;
  }

  /** The chat as saved on the server. */
  record(): IChatRecord {
    const state = this._state;
    return {
      version: CHAT_RECORD_VERSION,
      id: this._chatId,
      notebook: this._notebookPath,
      title: chatTitle(state.items),
      created: this._created,
      updated: Date.now(),
      // Image data is dropped from saved chats (the cards count the images
      // instead): the whole record is saved again after every change and the
      // server takes at most 20 MB; the cells keep the full images.
      items: state.items.map(item =>
        item.kind === 'tool' ? dropImages(item) : item
      ),
      history: withoutImages(this._history),
      usage: state.usage,
      plan: state.plan ? [...state.plan] : null,
      choice: state.choice
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
    this._notebookPath = record.notebook;
    this._history = [...record.history];
    // New items must not reuse the saved ones' ids.
    this._nextId = Math.max(
      0,
      ...record.items.map(item =>
        Number(/^item-(\d+)$/.exec(item.id)?.[1] ?? 0)
      )
    );
    this._set({
      items: record.items,
      status: 'idle',
      error: null,
      usage: record.usage ?? { promptTokens: 0, completionTokens: 0 },
      lastTurn: null,
      pendingApproval: null,
      plan: record.plan ?? null,
      review: null,
      choice: record.choice ?? null
    });
    return true;
  }

  /** Forget the conversation; `notebook` names the new chat's notebook. */
  newChat(notebook = this._notebookPath): void {
    this._keepClosed();
    this._chatId = newChatId();
    this._created = Date.now();
    this._notebookPath = notebook;
    this._history = [];
    this._set(emptyState());
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

  private _keepClosed(): void {
    if (this._state.items.length) {
      this._closed = this.record();
    }
  }

  /** Set this chat's provider and model (a new chat starts from the defaults). */
  setModelChoice(choice: IModelChoice | null): void {
    this._set({ choice });
  }

  /** Show an error that happened outside a run. */
  reportError(error: IAgentError | null): void {
    this._set({ error });
  }

  protected _notice(text: string): void {
    this._set({
      items: [...this._state.items, { kind: 'notice', id: this._id(), text }]
    });
  }

  protected _set(patch: Partial<ISessionState>): void {
    this._state = { ...this._state, ...patch };
    for (const listener of this._listeners) {
      listener();
    }
  }

  protected _id(): string {
    this._nextId += 1;
    return `item-${this._nextId}`;
  }
}
