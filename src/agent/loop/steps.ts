/**
 * The loop's steps as one discriminated union, and the pure functions that
 * choose the next one from what a step gave. run-agent.ts is a `switch`
 * over `NextStep` that carries each step out; every choice is made here (or
 * in next-step.ts, for the answers of small models) and is testable without
 * a model, a notebook or a clock.
 */
import type { IAssistantTurn } from '../model/accumulator';
import type {
  ChatMessage,
  IAgentError,
  IRunningCell,
  IToolCall,
  RunEndReason
} from '../types';
import {
  afterRefusal,
  lastOutput,
  type AnswerStep,
  type IComputeFirst,
  type ILoopMemory
} from './next-step';
import {
  commentsOnlyMessage,
  isFinalAnswer,
  reachedStepLimit,
  repeatedStepMessage,
  type RepeatVerdict
} from './stop-conditions';

/** What the loop does next. */
export type NextStep =
  /** Stream one turn of the model (its request shaped by the run's memory). */
  | { kind: 'call-model' }
  /** Run the turn's tool calls, each asking for approval where its tool says so. */
  | { kind: 'run-calls'; calls: ReadonlyArray<IToolCall> }
  /**
   * A repeated step, or a block with no code: its calls answered with
   * `refusal`, none run; then the run ends (`stop`: why), or goes on with
   * `memory`.
   */
  | {
      kind: 'refuse-calls';
      calls: ReadonlyArray<IToolCall>;
      refusal: string;
      stop: 'repeated-step' | 'no-code' | null;
      memory: ILoopMemory;
    }
  /** The model answered without calls: check the answer (next-step.ts `afterAnswer`). */
  | { kind: 'answer' }
  /** The answer goes back to the model (`send-back`), or cells left running are looked for. */
  | AnswerStep
  /** The answer was given over cells still running: the model is reminded, once. */
  | { kind: 'remind'; cells: IRunningCell[]; memory: ILoopMemory }
  /** The run ends, and why. */
  | {
      kind: 'stop';
      reason: RunEndReason;
      error?: IAgentError;
      detail?: string;
    };

/** Where the run stands when a round begins. */
export interface IRound {
  /** Model calls made so far. */
  steps: number;
  maxSteps: number;
  aborted: boolean;
}

/** Blocks with no code refused in a run before it ends (the same or not). */
export const NO_CODE_LIMIT = 3;

/** The step that begins each round: a model call, unless the run must end. */
export function nextRound({ steps, maxSteps, aborted }: IRound): NextStep {
  if (reachedStepLimit(steps, maxSteps)) {
    return { kind: 'stop', reason: 'step-limit' };
  }
  return aborted ? { kind: 'stop', reason: 'stopped' } : { kind: 'call-model' };
}

/** What the choice after a model's turn reads. */
export interface ITurnInput {
  turn: IAssistantTurn;
  /** Whether the turn's calls repeat the step before (null for an answer). */
  verdict: RepeatVerdict | null;
  /** The conversation, the turn's own message last. */
  messages: ReadonlyArray<ChatMessage>;
  memory: ILoopMemory;
  computeFirst: IComputeFirst | undefined;
  /** Every call of the turn that runs code carries no code (`holdsNoCode`). */
  commentsOnly?: boolean;
}

/**
 * After the model's turn: an answer is checked; a block with no code, or a
 * step sent again, is refused with what the last step gave (the run ends
 * when the same step comes a third time, or a third block with no code,
 * the same or not); other calls run.
 */
export function afterTurn(input: ITurnInput): NextStep {
  const { turn, verdict } = input;
  if (isFinalAnswer(turn)) {
    return { kind: 'answer' };
  }
  if (!input.commentsOnly && (verdict === null || verdict === 'run')) {
    return { kind: 'run-calls', calls: turn.toolCalls };
  }
  const previous = lastOutput(input.messages);
  const memory = afterRefusal(input.memory, previous, input.computeFirst);
  if (!input.commentsOnly) {
    return {
      kind: 'refuse-calls',
      calls: turn.toolCalls,
      refusal: repeatedStepMessage(previous),
      stop: verdict === 'stop' ? 'repeated-step' : null,
      memory
    };
  }
  // A block with no code is never run (no such cell in the user's
  // notebook), repeated or not: a repeat's message would say it ran. Each
  // refusal samples the next reply, so a model that keeps at it sends
  // other such blocks: the third ends the run as the third repeat does.
  const noCode = input.memory.noCode + 1;
  return {
    kind: 'refuse-calls',
    calls: turn.toolCalls,
    refusal: commentsOnlyMessage(previous),
    stop: verdict === 'stop' || noCode >= NO_CODE_LIMIT ? 'no-code' : null,
    memory: { ...memory, noCode }
  };
}

/**
 * After looking for cells left running under an answer (`cells`; none when
 * not looked for): an answer over code still running is given from partial
 * output, so the model is asked once to wait for it or stop it first.
 */
export function afterRunningCheck(
  cells: IRunningCell[],
  memory: ILoopMemory,
  aborted: boolean
): NextStep {
  if (cells.length && !aborted && !memory.reminded) {
    return { kind: 'remind', cells, memory: { ...memory, reminded: true } };
  }
  return { kind: 'stop', reason: 'completed' };
}

/** After the calls ran: the run ends when the same failure repeated, else the next round. */
export function afterCalls(
  repeated: boolean,
  detail: string,
  round: IRound
): NextStep {
  return repeated
    ? { kind: 'stop', reason: 'repeated-failure', detail }
    : nextRound(round);
}
