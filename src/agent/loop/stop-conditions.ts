/**
 * When the loop stops on its own. Small pure helpers, tested directly.
 */
import type { IAssistantTurn } from '../model/accumulator';

/** Default maximum number of model calls in one run. */
export const DEFAULT_MAX_STEPS = 30;

/** The model answered without asking for tools: the task is done. */
export function isFinalAnswer(turn: IAssistantTurn): boolean {
  return turn.toolCalls.length === 0;
}

/** The run used all of its steps. */
export function reachedStepLimit(step: number, maxSteps: number): boolean {
  return step >= maxSteps;
}
