/**
 * What the steps of a turn produce, as one typed list: each item is a step
 * of the conversation (a reply, a call starting, its result, a message the
 * model reads, a line for the transcript). The loop applies each one in one
 * place (`applyItem`, conversation.ts): the conversation takes it whole —
 * the session's store keeps it in the chat's one record, from which both
 * the model's history and the transcript are derived — and the loop's
 * listeners get the events derived from it (`eventOf`). Types and pure
 * functions only: the session's store reads them without loading the loop.
 */
import type { ToolKind } from '../tools/registry';
import type { AgentEvent, ChatMessage, IToolCall, IToolResult } from '../types';

/** The model's message of a turn. */
export type AssistantMessage = Extract<ChatMessage, { role: 'assistant' }>;

/** The message that answers a tool call. */
export type ToolMessage = Extract<ChatMessage, { role: 'tool' }>;

/**
 * What a call's card says of it, read from its tool's definition when the
 * call starts: a card (and a chat reopened later) needs neither the tool
 * nor its arguments parsed again.
 */
export interface ICallCard {
  /** What the call does, in words (its tool's `title`). */
  title?: string;
  /** The cell the call runs or waits for (`run_cell`, `wait`: its tool's `cellOf`). */
  runsCell?: string;
  /** The code the call carries (its tool's `codeArgument`), shown on the card. */
  code?: string;
  /** What the call does to the notebook (its tool's kind): a `run` card shows its output. */
  kind?: ToolKind;
}

/** One thing a step of a turn produced. */
export type TurnItem =
  /**
   * A message the model reads that the transcript does not show as such:
   * observations, context, the answer of a call that did not run, images.
   */
  | { type: 'message'; message: ChatMessage }
  /**
   * The model's turn. `shown`: what the user saw of it as it streamed, when
   * that differs from the message (a reply cut off keeps why in the message).
   */
  | { type: 'reply'; message: AssistantMessage; shown?: string }
  /** A call of the last reply starts (or is refused): its card. */
  | { type: 'call'; call: IToolCall; card: ICallCard }
  /** A call ended: what its card shows, and the message the model reads. */
  | {
      type: 'result';
      callId: string;
      result: IToolResult;
      /** How long the call ran, without the time it waited for the user's approval. */
      durationMs: number;
      message: ToolMessage;
    }
  /** A line for the transcript from the loop itself. */
  | Extract<AgentEvent, { type: 'notice' }>
  /** Older steps were summarised (context/summary.ts). */
  | Extract<AgentEvent, { type: 'context-summary' }>
  /** The turn ended. */
  | Extract<AgentEvent, { type: 'end' }>;

/** The message the model reads of `item`, if any. */
export function messageOf(item: TurnItem): ChatMessage | null {
  switch (item.type) {
    case 'message':
    case 'reply':
    case 'result':
      return item.message;
    case 'call':
    case 'notice':
    case 'context-summary':
    case 'end':
      return null;
    default: {
      const unhandled: never = item;
      throw new Error(`No message for ${JSON.stringify(unhandled)}.`);
    }
  }
}

/**
 * The event the loop's listeners get for `item`, if any (a reply's text
 * reached them as it streamed, in `text-delta` events).
 */
export function eventOf(item: TurnItem): AgentEvent | null {
  switch (item.type) {
    case 'message':
    case 'reply':
      return null;
    case 'call': {
      const { call, card } = item;
      return {
        type: 'tool-call',
        call,
        ...(card.title !== undefined ? { title: card.title } : {}),
        ...(card.runsCell !== undefined ? { cellId: card.runsCell } : {})
      };
    }
    case 'result':
      return {
        type: 'tool-result',
        callId: item.callId,
        result: item.result,
        durationMs: item.durationMs
      };
    case 'notice':
    case 'context-summary':
    case 'end':
      return item;
    default: {
      const unhandled: never = item;
      throw new Error(`No event for ${JSON.stringify(unhandled)}.`);
    }
  }
}
