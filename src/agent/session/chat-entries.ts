/**
 * The one record of a conversation: a list of entries, each one step of
 * the chat with what the model reads of it (`message`) and what the user
 * sees of it (a line, a reply's text, a call's card), kept together. The
 * model's history (`historyOf`) and the transcript (transcript.ts) are
 * derived from it, and the saved chat stores it once (chat-record.ts).
 * `recordItem` is where a turn's items (loop/turn-items.ts) enter it.
 */
import type {
  AssistantMessage,
  ToolMessage,
  TurnItem
} from '../loop/turn-items';
import { capTranscriptImages, toolImages } from '../tool-images';
import type { ChatMessage, IPlanStep } from '../types';
import { endNotice, leftRunningNotice, summaryNotice } from './notices';
import type { TranscriptItem } from './types';

/** A message of the user's role. */
export type UserMessage = Extract<ChatMessage, { role: 'user' }>;

/** A tool call's card, as the transcript shows it. */
export type ToolCard = Extract<TranscriptItem, { kind: 'tool' }>;

/** A line of the transcript from the agent or the session. */
export type NoticeItem = Extract<TranscriptItem, { kind: 'notice' }>;

/** One step of a chat. */
export type ChatEntry =
  /**
   * What the model reads and the transcript does not show: the system
   * prompt, observations, context, the answer of a call that did not run.
   */
  | { kind: 'message'; message: ChatMessage }
  /**
   * A request: `message` what the model reads (null once a Retry took it
   * back), `line` what the transcript shows (the user's words with their
   * attachments, or a workflow's status as a notice; null for a Retry,
   * whose line is already there).
   */
  | {
      kind: 'prompt';
      id: string;
      message: UserMessage | null;
      line: { kind: 'user' | 'notice'; text: string } | null;
    }
  /**
   * The model's turn: its message (null in chats converted from the old
   * format, where the two were kept apart) and what the user saw of it
   * when that differs (`shown`: cut off, or a workflow's echo taken out).
   */
  | {
      kind: 'reply';
      id: string;
      message: AssistantMessage | null;
      shown?: string;
      /** Numbers the answer states that nothing computed (claims.ts). */
      notComputed?: string[];
    }
  /**
   * A call that started: its card, and the tool message that answered it
   * (null while it runs). The card's `output` is left out when it is the
   * message's content (read from there: stored once).
   */
  | { kind: 'call'; card: ToolCard; message: ToolMessage | null }
  /** A line for the transcript only. */
  | { kind: 'notice'; notice: NoticeItem };

/** The model's history: the messages of the entries, in order. */
export function historyOf(entries: ReadonlyArray<ChatEntry>): ChatMessage[] {
  const history: ChatMessage[] = [];
  for (const entry of entries) {
    const message = messageOfEntry(entry);
    if (message) {
      history.push(message);
    }
  }
  return history;
}

/** The message an entry holds for the model, if any. */
export function messageOfEntry(entry: ChatEntry): ChatMessage | null {
  return entry.kind === 'notice' ? null : entry.message;
}

/** What applying an item changed beside the entries. */
export interface IRecorded {
  /** The plan the item stated (`update_plan`). */
  plan?: ReadonlyArray<IPlanStep>;
}

/**
 * Keep a turn's item in `entries` (changed in place; entries themselves
 * are replaced, never changed); `newId` names new lines.
 */
export function recordItem(
  entries: ChatEntry[],
  item: TurnItem,
  newId: () => string
): IRecorded {
  switch (item.type) {
    case 'message':
      entries.push({ kind: 'message', message: item.message });
      return {};
    case 'reply':
      entries.push({
        kind: 'reply',
        id: newId(),
        message: item.message,
        ...(item.shown !== undefined ? { shown: item.shown } : {})
      });
      return {};
    case 'call':
      entries.push({
        kind: 'call',
        card: {
          kind: 'tool',
          id: item.call.id,
          name: item.call.name,
          ...(item.card.title !== undefined ? { title: item.card.title } : {}),
          ...(item.card.runsCell !== undefined
            ? { runsCell: item.card.runsCell }
            : {}),
          ...(item.card.code !== undefined ? { code: item.card.code } : {}),
          ...(item.card.kind !== undefined ? { toolKind: item.card.kind } : {}),
          arguments: item.call.arguments,
          status: 'running'
        },
        message: null
      });
      return {};
    case 'result':
      endCall(entries, item);
      return item.result.plan ? { plan: item.result.plan } : {};
    case 'notice':
      entries.push(notice(newId(), item.text));
      return {};
    case 'context-summary':
      entries.push({
        kind: 'notice',
        notice: {
          kind: 'notice',
          id: newId(),
          text: summaryNotice(item),
          summary: item.text
        }
      });
      return {};
    case 'end': {
      const line = endNotice(item);
      if (line) {
        entries.push(notice(newId(), line));
      }
      if (item.leftRunning?.length) {
        entries.push({
          kind: 'notice',
          notice: {
            kind: 'notice',
            id: newId(),
            text: leftRunningNotice(item.leftRunning),
            runningCells: item.leftRunning
          }
        });
      }
      return {};
    }
    default: {
      const unhandled: never = item;
      throw new Error(`No entry for ${JSON.stringify(unhandled)}.`);
    }
  }
}

/** A notice entry. */
export function notice(id: string, text: string): ChatEntry {
  return { kind: 'notice', notice: { kind: 'notice', id, text } };
}

/**
 * The call's card ends as its result says, with the message that answers
 * it; a call without a card (none started) gets its message as an entry.
 */
function endCall(
  entries: ChatEntry[],
  item: Extract<TurnItem, { type: 'result' }>
): void {
  const { result, message } = item;
  // Search from the end: some servers reuse call ids across turns.
  const index = lastCallIndex(entries, item.callId);
  if (index < 0) {
    entries.push({ kind: 'message', message });
    return;
  }
  const { card } = entries[index] as Extract<ChatEntry, { kind: 'call' }>;
  const output = result.preview ?? result.output;
  const ended: ToolCard = {
    ...card,
    status: result.rejected ? 'rejected' : result.ok ? 'done' : 'error',
    ...(result.rejected?.reason ? { reason: result.rejected.reason } : {}),
    ...(output !== message.content ? { output } : {}),
    cellId: result.cellId,
    durationMs: item.durationMs,
    ...(result.stillRunning ? { stillRunning: true } : {}),
    ...(result.fileChange
      ? {
          file: {
            path: result.fileChange.path,
            created: result.fileChange.before === null
          }
        }
      : {}),
    ...toolImages(result.images)
  };
  entries[index] = { kind: 'call', card: ended, message };
  capImages(entries);
}

/** The index of the last card of call `callId`, or -1. */
export function lastCallIndex(
  entries: ReadonlyArray<ChatEntry>,
  callId: string
): number {
  for (let index = entries.length - 1; index >= 0; index -= 1) {
    const entry = entries[index];
    if (entry.kind === 'call' && entry.card.id === callId) {
      return index;
    }
  }
  return -1;
}

/**
 * Image data on the newest cards only (tool-images.ts): a long chat full
 * of plots must not hold them all in memory.
 */
function capImages(entries: ChatEntry[]): void {
  const calls = entries.flatMap((entry, index) =>
    entry.kind === 'call' ? [{ index, entry }] : []
  );
  const capped = capTranscriptImages(calls.map(({ entry }) => entry.card));
  calls.forEach(({ index, entry }, at) => {
    if (capped[at] !== entry.card) {
      entries[index] = { ...entry, card: capped[at] };
    }
  });
}
