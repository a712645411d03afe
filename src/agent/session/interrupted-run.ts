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
import type { ChatMessage } from '../types';
import type { TranscriptItem } from './types';

export { runsNamedCell } from '../tools/named-cell';

/** The transcript's line for a run the page's going away interrupted. */
export const INTERRUPTED_NOTICE =
  'This run was interrupted (page reloaded): the agent stopped when the page went away. Ask again to continue.';

/** What the tool calls left unanswered get in the conversation. */
export const NOT_RUN_RELOADED =
  'Not finished: the page was reloaded during this call, so the run stopped.';

/**
 * The cell a saved call of the tool named `name` with these arguments (JSON)
 * runs or watches, or null: for cards saved before a card carried that cell
 * itself (`runsCell`, from the tool-call event).
 */
export type RunsCellLookup = (name: string, args: string) => string | null;

/**
 * The agent's own tools that run or wait for the cell they name
 * (`runsNamedCell`: interrupted-run.test.ts holds this list against their
 * definitions), for cards saved before they carried their cell. Named here
 * so that reopening a chat loads no tool.
 */
const SAVED_RUN_CELL_TOOLS: ReadonlySet<string> = new Set(['run_cell', 'wait']);

/** `RunsCellLookup` over the agent's own tools (their argument `cell_id`). */
export function agentRunsCell(): RunsCellLookup {
  return (name, args) => {
    if (!SAVED_RUN_CELL_TOOLS.has(name)) {
      return null;
    }
    try {
      const cell = (JSON.parse(args) as { cell_id?: unknown } | null)?.cell_id;
      return typeof cell === 'string' ? cell : null;
    } catch {
      return null;
    }
  };
}

/** A reopened record, settled; null when it was not saved mid-run. */
export interface ISettledRun {
  items: TranscriptItem[];
  history: ChatMessage[];
  /** Cells the interrupted run may have left running. */
  cellIds: string[];
}

/**
 * Settle a record saved mid-run (`running`, or a card still running);
 * null when the record's runs had all ended.
 */
export function settleInterruptedRun(
  record: Pick<IChatRecord, 'items' | 'history' | 'running'>,
  newId: () => string,
  runsCell: RunsCellLookup = agentRunsCell()
): ISettledRun | null {
  const runningCard = record.items.some(
    item => item.kind === 'tool' && item.status === 'running'
  );
  if (!record.running && !runningCard) {
    return null;
  }
  const cellIds = new Set<string>();
  // The cells of the last run's cards that did not finish.
  const lastPrompt = record.items.map(item => item.kind).lastIndexOf('user');
  const items = record.items.map((item, index): TranscriptItem => {
    if (item.kind !== 'tool') {
      return item;
    }
    const ran = item.runsCell ?? runsCell(item.name, item.arguments);
    const cell = item.cellId ?? ran;
    if (index > lastPrompt && cell) {
      if (item.status === 'running' || item.stillRunning) {
        cellIds.add(cell);
      } else if (ran !== null) {
        cellIds.delete(cell);
      }
    }
    return item.status === 'running'
      ? { ...item, status: 'interrupted' }
      : item;
  });
  items.push({ kind: 'notice', id: newId(), text: INTERRUPTED_NOTICE });
  return {
    items,
    history: answerDanglingCalls(record.history),
    cellIds: [...cellIds]
  };
}

/**
 * The conversation with a tool message for every call that has none, right
 * after the calls' own tool messages (a request with an unanswered call is
 * refused by OpenAI-compatible servers).
 */
export function answerDanglingCalls(
  history: ReadonlyArray<ChatMessage>
): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (let index = 0; index < history.length; index += 1) {
    const message = history[index];
    out.push(message);
    if (message.role !== 'assistant' || !message.toolCalls?.length) {
      continue;
    }
    const answered = new Set<string>();
    while (history[index + 1]?.role === 'tool') {
      index += 1;
      const reply = history[index] as Extract<ChatMessage, { role: 'tool' }>;
      answered.add(reply.toolCallId);
      out.push(reply);
    }
    for (const call of message.toolCalls) {
      if (!answered.has(call.id)) {
        out.push({
          role: 'tool',
          toolCallId: call.id,
          content: NOT_RUN_RELOADED
        });
      }
    }
  }
  return out;
}
