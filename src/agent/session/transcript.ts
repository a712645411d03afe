/**
 * The transcript the sidebar shows, derived from the chat's one record
 * (chat-entries.ts): requests as the user wrote them, replies as they were
 * shown, a card per call that started, and the lines of the agent and the
 * session. Pure: the store derives it again whenever the record changes.
 */
import { withoutCodeBlock } from '../loop/code-blocks';
import type { ChatEntry, ToolCard } from './chat-entries';
import type { TranscriptItem } from './types';

/** The transcript of `entries`. */
export function transcriptOf(
  entries: ReadonlyArray<ChatEntry>
): TranscriptItem[] {
  const items: TranscriptItem[] = [];
  for (const entry of entries) {
    switch (entry.kind) {
      case 'message':
        break;
      case 'prompt':
        if (entry.line) {
          items.push({
            kind: entry.line.kind,
            id: entry.id,
            text: entry.line.text
          });
        }
        break;
      case 'reply': {
        const text = entry.shown ?? entry.message?.content ?? '';
        if (text) {
          const guess = entry.message?.guess === true;
          addText(items, entry.id, text, {
            notComputed: entry.notComputed,
            guess
          });
        }
        break;
      }
      case 'call': {
        const card: ToolCard =
          entry.card.output === undefined && entry.message
            ? { ...entry.card, output: entry.message.content }
            : entry.card;
        if (card.code !== undefined) {
          dropAnsweredCode(items, card.code);
        }
        items.push(card);
        break;
      }
      case 'notice':
        items.push(entry.notice);
        break;
      default: {
        const unhandled: never = entry;
        throw new Error(`No transcript for ${JSON.stringify(unhandled)}.`);
      }
    }
  }
  return items;
}

/**
 * `items` with the text of a reply still streaming (`draft`, item `id`):
 * it continues the answer shown last, or is a new one.
 */
export function withDraft(
  items: ReadonlyArray<TranscriptItem>,
  draft: { id: string; text: string } | null
): ReadonlyArray<TranscriptItem> {
  if (!draft?.text) {
    return items;
  }
  const shown = [...items];
  addText(shown, draft.id, draft.text);
  return shown;
}

/**
 * Show a reply's text: after the answer shown last, or as a new one. A guess
 * and an answer are never joined: the guess is folded away on its own.
 */
function addText(
  items: TranscriptItem[],
  id: string,
  text: string,
  marks: { notComputed?: string[]; guess?: boolean } = {}
): void {
  const last = items[items.length - 1];
  const guess = marks.guess === true;
  const added = {
    ...(marks.notComputed ? { notComputed: marks.notComputed } : {}),
    ...(guess ? { guess } : {})
  };
  if (last?.kind === 'assistant' && (last.guess === true) === guess) {
    items[items.length - 1] = { ...last, text: last.text + text, ...added };
  } else {
    items.push({ kind: 'assistant', id, text, ...added });
  }
}

/**
 * The code a call carries shows on its card: the answer before the call's
 * cards (the text protocol wrote it as a code block there) stops showing it.
 */
function dropAnsweredCode(items: TranscriptItem[], code: string): void {
  let index = items.length - 1;
  while (index >= 0 && items[index].kind === 'tool') {
    index -= 1;
  }
  const answer = items[index];
  if (answer?.kind === 'assistant') {
    const text = withoutCodeBlock(answer.text, code);
    if (text !== answer.text) {
      items[index] = { ...answer, text };
    }
  }
}
