/**
 * The conversation as the loop may change it. The loop never holds the
 * array: it reads the messages and hands each step's items to `applyItem`,
 * the one place a turn changes the conversation; the conversation keeps
 * them (the session's store, session/store.ts, in the chat's one record; a
 * plain array of messages for runs set up by hand).
 */
import type { AgentEvent, ChatMessage } from '../types';
import { eventOf, messageOf, type TurnItem } from './turn-items';

/** A conversation the loop reads and adds the items of its steps to. */
export interface IConversation {
  /** The messages so far, oldest first (what the model reads). */
  readonly messages: ReadonlyArray<ChatMessage>;
  /** Keep one item a step produced (its message, if any, at the end). */
  apply(item: TurnItem): void;
  /**
   * Mark the last message, an answer sent back for want of code, a guess:
   * kept, and left out of every later request (context-keeper.ts).
   */
  markLastAsGuess(): void;
}

/**
 * Apply what a step produced: the conversation keeps each item, then the
 * turn's listeners get the event derived from it. Nothing else in the loop
 * adds to the conversation or emits these events.
 */
export function applyItem(
  turn: {
    conversation: IConversation;
    onEvent: (event: AgentEvent) => void;
  },
  ...items: TurnItem[]
): void {
  for (const item of items) {
    turn.conversation.apply(item);
    const event = eventOf(item);
    if (event) {
      turn.onEvent(event);
    }
  }
}

/** A conversation kept in `messages` (tests, the eval, scripts): changed in place. */
export function arrayConversation(messages: ChatMessage[]): IConversation {
  return {
    messages,
    apply: item => {
      const message = messageOf(item);
      if (message) {
        messages.push(message);
      }
    },
    markLastAsGuess: () => markLastAsGuess(messages)
  };
}

/** `IConversation.markLastAsGuess` over the array that keeps the conversation. */
export function markLastAsGuess(messages: ChatMessage[]): void {
  const last = messages[messages.length - 1];
  if (last?.role === 'assistant') {
    messages[messages.length - 1] = { ...last, guess: true };
  }
}
