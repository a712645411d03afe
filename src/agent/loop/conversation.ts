/**
 * The conversation as the loop may change it. The loop never holds the
 * array: it reads the messages and changes them through these methods, so
 * the conversation has one owner (the session's store, session/store.ts;
 * a plain array for runs set up by hand).
 */
import type { ChatMessage } from '../types';

/** A conversation the loop reads and appends to. */
export interface IConversation {
  /** The messages so far, oldest first. */
  readonly messages: ReadonlyArray<ChatMessage>;
  /** Add messages at the end. */
  appendMessages(...messages: ChatMessage[]): void;
  /**
   * Mark the last message, an answer sent back for want of code, a guess:
   * kept, and left out of every later request (context-keeper.ts).
   */
  markLastAsGuess(): void;
}

/** A conversation kept in `messages` (tests, the eval, scripts): changed in place. */
export function arrayConversation(messages: ChatMessage[]): IConversation {
  return {
    messages,
    appendMessages: (...added) => {
      messages.push(...added);
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
