/**
 * The chat's one record as the session keeps it (chat-entries.ts): its
 * entries, the reply streaming now, and what is derived from them after
 * every change — the model's history and the transcript — never written.
 * The loop's items enter through `apply` (`IConversation`); the session's
 * own steps (a request, a line, an answer's marks, a file undone, a cell
 * starting) through the named methods. The store (store.ts) owns one and
 * publishes its transcript.
 */
import type { IConversation } from '../loop/conversation';
import type { TurnItem } from '../loop/turn-items';
import type { ChatMessage, IPlanStep } from '../types';
import {
  historyOf,
  lastCallIndex,
  messageOfEntry,
  notice,
  recordItem,
  type ChatEntry,
  type UserMessage
} from './chat-entries';
import { transcriptOf, withDraft } from './transcript';
import type { TranscriptItem } from './types';

/** The marks a session puts on the answer shown last. */
export interface IAnswerMarks {
  /** The answer's text as shown (a workflow's echo taken out; '' hides it). */
  shown?: string;
  /** Numbers it states that nothing computed. */
  notComputed?: string[];
}

/** What a change of the log tells its owner. */
export interface ILogChange {
  /** The plan an item stated (`update_plan`). */
  plan?: ReadonlyArray<IPlanStep>;
}

/** A chat's record in memory, with its history and transcript derived. */
export class ChatLog implements IConversation {
  /**
   * `newId` names new lines; `changed` is told after every change (the
   * store publishes the transcript then).
   */
  constructor(
    private readonly _newId: () => string,
    private readonly _changed: (change: ILogChange) => void
  ) {}

  /** The entries, oldest first (read-only). */
  get entries(): ReadonlyArray<ChatEntry> {
    return this._entries;
  }

  /** The model's history (`IConversation.messages`). */
  get messages(): ReadonlyArray<ChatMessage> {
    return this._history;
  }

  /** The transcript, with the reply streaming now. */
  get items(): ReadonlyArray<TranscriptItem> {
    return withDraft(this._transcript, this._draft);
  }

  /** Keep an item a step of the loop produced (`IConversation`). */
  apply(item: TurnItem): void {
    // The reply that was streaming keeps the line it streamed in.
    const draft = this._draft;
    const newId = () =>
      item.type === 'reply' && draft ? draft.id : this._newId();
    if (item.type === 'reply') {
      this._draft = null;
    }
    const { plan } = recordItem(this._entries, item, newId);
    this._update(plan ? { plan } : {});
  }

  /** The text of the reply streaming now grows by `text`. */
  stream(text: string): void {
    this._draft = {
      id: this._draft?.id ?? this._newId(),
      text: (this._draft?.text ?? '') + text
    };
    this._changed({});
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
    this._update();
  }

  /**
   * A request: `message` for the model, `line` for the transcript (null:
   * a Retry, whose line the transcript already has).
   */
  addPrompt(
    message: UserMessage,
    line: { kind: 'user' | 'notice'; text: string } | null
  ): void {
    this._entries.push({ kind: 'prompt', id: this._newId(), message, line });
    this._update();
  }

  /** Add a line to the transcript. */
  notice(text: string): void {
    this._entries.push(notice(this._newId(), text));
    this._update();
  }

  /** Mark the last message, an answer sent back for want of code, a guess (`IConversation`). */
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
        this._update();
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
      this._update();
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
      this._update();
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
      this._update();
    }
  }

  /**
   * The running call's card names the cell it starts to run, where it did
   * not already (a cell `insert_cell` with `run: true` made is known only
   * now): a chat saved mid-run (the page went away) knows which cell the
   * kernel may still be busy with (interrupted-run.ts).
   */
  nameRunningCard(cellId: string): void {
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
    this._update();
  }

  /** Hold `entries` instead (a chat reopened, or none for a new chat); tells no one. */
  reset(entries: ReadonlyArray<ChatEntry>): void {
    this._entries.splice(0, this._entries.length, ...entries);
    this._draft = null;
    this._derive();
  }

  /** The record changed: derive again, and tell the owner. */
  private _update(change: ILogChange = {}): void {
    this._derive();
    this._changed(change);
  }

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

  /** The record, changed only by the methods above. */
  private readonly _entries: ChatEntry[] = [];
  /** Derived from the record: what the model reads. */
  private _history: ChatMessage[] = [];
  /** Derived from the record: what the sidebar shows (without the streaming reply). */
  private _transcript: TranscriptItem[] = [];
  /** The reply streaming now: its line's id and its text so far. */
  private _draft: { id: string; text: string } | null = null;
}
