/**
 * The record as a saved chat holds it (chat-record.ts): the entries
 * without image data (the cards count the images instead: the whole chat
 * is saved again after every change and the server takes at most 20 MB;
 * the cells keep the full images), and the entries of any saved chat, a
 * chat of the old format converted (legacy-chat.ts).
 */
import { withoutImages, type IChatRecord } from '../chat-record';
import { dropImages } from '../tool-images';
import type { ChatMessage } from '../types';
import type { ChatEntry } from './chat-entries';
import { entriesOfLegacy, type RunsCellLookup } from './legacy-chat';

/** `entries` as they are saved. */
export function savedEntries(entries: ReadonlyArray<ChatEntry>): ChatEntry[] {
  return entries.map(entry => {
    switch (entry.kind) {
      case 'call':
        return entry.card.images?.length
          ? { ...entry, card: dropImages(entry.card) }
          : entry;
      case 'message':
        return { ...entry, message: withoutImage(entry.message) };
      case 'prompt':
        return entry.message
          ? { ...entry, message: withoutImage(entry.message) }
          : entry;
      case 'reply':
      case 'notice':
        return entry;
      default: {
        const unhandled: never = entry;
        throw new Error(`Not an entry: ${JSON.stringify(unhandled)}.`);
      }
    }
  });
}

/**
 * The entries of a saved chat; one saved before the one record, converted.
 * Entries of a kind this version does not know (a newer one's), or without
 * the parts their kind has, are left out rather than break the chat.
 */
export function savedEntriesOf(
  record: Pick<IChatRecord, 'entries' | 'items' | 'history'>,
  runsCell?: RunsCellLookup
): ChatEntry[] {
  return record.entries
    ? record.entries.filter(isEntry)
    : entriesOfLegacy(
        { items: record.items ?? [], history: record.history ?? [] },
        runsCell
      );
}

/** Whether a saved value has the shape of an entry this version reads. */
function isEntry(value: unknown): value is ChatEntry {
  const entry = value as Record<string, unknown> | null;
  const object = (part: unknown) => !!part && typeof part === 'object';
  switch (entry?.kind) {
    case 'message':
      return object(entry.message);
    case 'prompt':
    case 'reply':
      return typeof entry.id === 'string';
    case 'call':
      return object(entry.card);
    case 'notice':
      return object(entry.notice);
    default:
      return false;
  }
}

function withoutImage<T extends ChatMessage>(message: T): T {
  return withoutImages([message])[0] as T;
}
