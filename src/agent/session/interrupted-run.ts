/**
 * A chat reopened from a record saved in the middle of a run (the page was
 * reloaded or its tab closed while the agent worked): the run is over, so
 * nothing may look as if it still went on. Its running cards become
 * "interrupted (page reloaded)", the transcript says so once, the model
 * conversation gets an answer for every tool call left without one (or the
 * next request would be invalid), and the cells the run may have left
 * running in the kernel are named so the sidebar can offer Interrupt.
 */
import type { IChatRecord } from '../chat-record';
import { messageOfEntry, type ChatEntry } from './chat-entries';
import { agentRunsCell, type RunsCellLookup } from './legacy-chat';
import { savedEntriesOf } from './saved-entries';

export { runsNamedCell } from '../tools/named-cell';
export { agentRunsCell, type RunsCellLookup } from './legacy-chat';

/** The transcript's line for a run the page's going away interrupted. */
export const INTERRUPTED_NOTICE =
  'This run was interrupted (page reloaded): the agent stopped when the page went away. Ask again to continue.';

/** What the tool calls left unanswered get in the conversation. */
export const NOT_RUN_RELOADED =
  'Not finished: the page was reloaded during this call, so the run stopped.';

/** A reopened record, settled; null when it was not saved mid-run. */
export interface ISettledRun {
  entries: ChatEntry[];
  /** Cells the interrupted run may have left running. */
  cellIds: string[];
}

/**
 * Settle a record saved mid-run (`running`, or a card still running);
 * null when the record's runs had all ended. `runsCell` names the cells of
 * cards saved before they carried theirs (an old record's, converted).
 */
export function settleInterruptedRun(
  record: Pick<IChatRecord, 'entries' | 'items' | 'history' | 'running'>,
  newId: () => string,
  runsCell: RunsCellLookup = agentRunsCell()
): ISettledRun | null {
  const saved = savedEntriesOf(record, runsCell);
  const runningCard = saved.some(
    entry => entry.kind === 'call' && entry.card.status === 'running'
  );
  if (!record.running && !runningCard) {
    return null;
  }
  const cellIds = new Set<string>();
  // The cells of the last run's cards that did not finish.
  let lastPrompt = -1;
  saved.forEach((entry, index) => {
    if (entry.kind === 'prompt' && entry.line?.kind === 'user') {
      lastPrompt = index;
    }
  });
  const entries = saved.map((entry, index): ChatEntry => {
    if (entry.kind !== 'call') {
      return entry;
    }
    const { card } = entry;
    const ran = card.runsCell ?? null;
    const cell = card.cellId ?? ran;
    if (index > lastPrompt && cell) {
      if (card.status === 'running' || card.stillRunning) {
        cellIds.add(cell);
      } else if (ran !== null) {
        cellIds.delete(cell);
      }
    }
    return card.status === 'running'
      ? { ...entry, card: { ...card, status: 'interrupted' } }
      : entry;
  });
  answerDanglingCalls(entries);
  entries.push({
    kind: 'notice',
    notice: { kind: 'notice', id: newId(), text: INTERRUPTED_NOTICE }
  });
  return { entries, cellIds: [...cellIds] };
}

/**
 * Give every tool call without an answer one (a request with an
 * unanswered call is refused by OpenAI-compatible servers): on its card,
 * where it has one, or as a message after its reply's answers. In place.
 */
function answerDanglingCalls(entries: ChatEntry[]): void {
  for (let index = 0; index < entries.length; index += 1) {
    const message = messageOfEntry(entries[index]);
    if (message?.role !== 'assistant' || !message.toolCalls?.length) {
      continue;
    }
    // The reply's answers follow it (cards still running and lines have
    // no message): the group ends at the next other message.
    const answered = new Set<string>();
    let after = index + 1;
    let end = index + 1;
    for (; end < entries.length; end += 1) {
      const next = messageOfEntry(entries[end]);
      if (!next) {
        continue;
      }
      if (next.role !== 'tool') {
        break;
      }
      answered.add(next.toolCallId);
      after = end + 1;
    }
    for (const call of message.toolCalls) {
      if (answered.has(call.id)) {
        continue;
      }
      const answer = {
        role: 'tool' as const,
        toolCallId: call.id,
        content: NOT_RUN_RELOADED
      };
      const card = entries.findIndex(
        (entry, at) =>
          at > index &&
          at < end &&
          entry.kind === 'call' &&
          entry.card.id === call.id &&
          !entry.message
      );
      const entry = entries[card];
      if (entry?.kind === 'call') {
        entries[card] = { ...entry, message: answer };
      } else {
        entries.splice(after, 0, { kind: 'message', message: answer });
        after += 1;
        end += 1;
      }
    }
  }
}
