/**
 * How the loop's events change what the sidebar shows: a pure reducer from
 * (transcript, event) to the next transcript, kept apart from the session's
 * run management (runner.ts) and its store (store.ts).
 */
import { isCodeBlockTool } from '../loop/code-block-names';
import { withoutCodeBlock } from '../loop/code-blocks';
import { capTranscriptImages, toolImages } from '../tool-images';
import type { AgentEvent, IPlanStep, IRunningCell, IUsage } from '../types';
import type { TranscriptItem } from './types';

/** The part of the session state that events change. */
export interface IEventState {
  items: ReadonlyArray<TranscriptItem>;
  usage: IUsage;
  plan: ReadonlyArray<IPlanStep> | null;
}

/** The state after `event`; `newId` names new transcript items. */
export function applyEvent(
  state: IEventState,
  event: AgentEvent,
  newId: () => string
): Partial<IEventState> {
  const items = [...state.items];
  switch (event.type) {
    case 'text-delta': {
      const last = items[items.length - 1];
      if (last?.kind === 'assistant') {
        items[items.length - 1] = { ...last, text: last.text + event.text };
      } else {
        items.push({ kind: 'assistant', id: newId(), text: event.text });
      }
      return { items };
    }
    case 'tool-call':
      if (isCodeBlockTool(event.call.name)) {
        dropAnsweredCode(items, event.call.arguments);
      }
      items.push({
        kind: 'tool',
        id: event.call.id,
        name: event.call.name,
        ...(event.title ? { title: event.title } : {}),
        ...(event.cellId !== undefined ? { runsCell: event.cellId } : {}),
        arguments: event.call.arguments,
        status: 'running'
      });
      return { items };
    case 'cell-start':
      return nameRunningCard(items, event.cellId);
    case 'tool-result': {
      // Search from the end: some servers reuse call ids across turns.
      let index = items.length - 1;
      while (
        index >= 0 &&
        !(items[index].kind === 'tool' && items[index].id === event.callId)
      ) {
        index -= 1;
      }
      const item = items[index];
      if (item?.kind === 'tool') {
        items[index] = {
          ...item,
          status: event.result.rejected
            ? 'rejected'
            : event.result.ok
              ? 'done'
              : 'error',
          ...(event.result.rejected?.reason
            ? { reason: event.result.rejected.reason }
            : {}),
          output: event.result.preview ?? event.result.output,
          cellId: event.result.cellId,
          durationMs: event.durationMs,
          ...(event.result.stillRunning ? { stillRunning: true } : {}),
          ...(event.result.fileChange
            ? {
                file: {
                  path: event.result.fileChange.path,
                  created: event.result.fileChange.before === null
                }
              }
            : {}),
          ...toolImages(event.result.images)
        };
      }
      const capped = capTranscriptImages(items);
      return event.result.plan
        ? { items: capped, plan: event.result.plan }
        : { items: capped };
    }
    case 'usage':
      return {
        usage: {
          promptTokens: state.usage.promptTokens + event.usage.promptTokens,
          completionTokens:
            state.usage.completionTokens + event.usage.completionTokens
        }
      };
    case 'notice':
      items.push({ kind: 'notice', id: newId(), text: event.text });
      return { items };
    case 'context-summary':
      items.push({
        kind: 'notice',
        id: newId(),
        text: summaryNotice(event),
        summary: event.text
      });
      return { items };
    case 'end': {
      const notice = endNotice(event);
      if (notice) {
        items.push({ kind: 'notice', id: newId(), text: notice });
      }
      if (event.leftRunning?.length) {
        items.push({
          kind: 'notice',
          id: newId(),
          text: leftRunningNotice(event.leftRunning),
          runningCells: event.leftRunning
        });
      }
      return { items };
    }
    default:
      return {};
  }
}

/**
 * The running call's card names the cell it starts to run, where it did
 * not already (a cell `insert_cell` with `run: true` made is known only
 * now): a chat saved mid-run (the page went away) knows which cell the
 * kernel may still be busy with (interrupted-run.ts).
 */
function nameRunningCard(
  items: TranscriptItem[],
  cellId: string
): Partial<IEventState> {
  let index = items.length - 1;
  while (index >= 0 && items[index].kind !== 'tool') {
    index -= 1;
  }
  const card = items[index];
  if (card?.kind !== 'tool' || card.status !== 'running' || card.cellId) {
    return {};
  }
  items[index] = { ...card, cellId };
  return { items };
}

/**
 * The text protocol turns an answer's code block into a call: the answer
 * (the last one, before this turn's cards) stops showing that code, which
 * its card shows.
 */
function dropAnsweredCode(items: TranscriptItem[], args: string): void {
  let source: unknown;
  try {
    source = (JSON.parse(args) as { source?: unknown }).source;
  } catch {
    return;
  }
  let index = items.length - 1;
  while (index >= 0 && items[index].kind === 'tool') {
    index -= 1;
  }
  const answer = items[index];
  if (typeof source === 'string' && answer?.kind === 'assistant') {
    const text = withoutCodeBlock(answer.text, source);
    if (text !== answer.text) {
      items[index] = { ...answer, text };
    }
  }
}

/** The run's last line when cells it ran are still running. */
export function leftRunningNotice(cells: ReadonlyArray<IRunningCell>): string {
  const names = cells.map(cell => cell.label).join(', ');
  return cells.length === 1
    ? `Still running in the kernel: ${names}. The run ended with it still going; Interrupt stops it.`
    : `Still running in the kernel: ${names}. The run ended with them still going; Interrupt stops them.`;
}

/** The transcript's line when older steps were summarised. */
export function summaryNotice(
  event: Extract<AgentEvent, { type: 'context-summary' }>
): string {
  const messages = event.replaced === 1 ? 'message' : 'messages';
  return (
    `Earlier steps summarised: the model now reads a summary instead of ${event.replaced} earlier ${messages} ` +
    `(about ${event.tokensBefore} → ${event.tokensAfter} tokens of context).`
  );
}

function endNotice(event: Extract<AgentEvent, { type: 'end' }>): string | null {
  switch (event.reason) {
    case 'stopped':
      return 'Stopped.';
    case 'step-limit':
      return 'Stopped: the step limit was reached. Ask to continue, or raise the limit in the settings.';
    case 'repeated-failure':
      return (
        `Stopped: the same error happened three times in a row (${event.detail}). ` +
        'Check the cells above, then ask again with more detail.'
      );
    case 'repeated-step':
      return (
        'Stopped: the model asked to run the same code again after seeing its result. ' +
        'Rephrase the request or say what to change; a larger model loops less.'
      );
    case 'completed':
    case 'error':
      return null;
  }
}
