/**
 * What the loop does next, decided by pure functions over what a run has
 * seen so far: how the next model request is shaped, what becomes of a
 * final answer, and what follows a step refused as a repeat. run-agent.ts
 * is the driver that carries the decisions out (streams, tools, events);
 * each decision here is testable without a model, a notebook or a clock.
 */
import type { ChatMessage } from '../types';
import { askedForm, formRepair } from './answer-form';
import { computeRepair, type IComputeCheckInput } from './compute-check';

/** The transcript's line when an answer is sent back to be computed. */
export const COMPUTE_REPAIR_NOTICE =
  'The answer was not computed in the notebook: asked the model to run code for it.';

/** The transcript's line when an answer is sent back for the asked form. */
export const FORM_REPAIR_NOTICE =
  'The answer lacked the form the request asks for: asked the model for it.';

/** The small profile's repairs (`computeFirst` of the run's options). */
export interface IComputeFirst {
  protocol: 'native' | 'text';
  /**
   * Ask for code (`required`: a tool call, or a prefilled code block in
   * the text protocol) in the reply to a repair for a guess (default true).
   */
  forceFirstCall?: boolean;
}

/** What the run remembers between steps, for the decisions below. */
export interface ILoopMemory {
  /** Answers sent back to be computed. */
  repairs: number;
  /** The asked form was requested once already. */
  formAsked: boolean;
  /** The model was reminded once of cells left running. */
  reminded: boolean;
  /** The next reply must run code (a guess was sent back). */
  mustRunCode: boolean;
  /** The last step was refused as a repeat: the next reply is sampled. */
  explore: boolean;
  /** …of a step whose output was fine: the next reply is begun with the asked answer line. */
  answerNext: boolean;
  /** Blocks with no code refused so far (`holdsNoCode`). */
  noCode: number;
}

/** A run's memory before its first step. */
export const FRESH_MEMORY: ILoopMemory = {
  repairs: 0,
  formAsked: false,
  reminded: false,
  mustRunCode: false,
  explore: false,
  answerNext: false,
  noCode: 0
};

/** How the next model request differs from a plain one. */
export interface IRequestShape {
  /** `required`: the reply must call a tool (or, in the text protocol, is begun as code). */
  forceCall: boolean;
  /** Sampled, not greedy (model/sampling.ts `RETRY_TEMPERATURE`). */
  sampled: boolean;
  /** The reply is begun with this text (the asked answer line's label and colon). */
  prefill?: string;
}

/**
 * The shape of the next request, and the memory after it (the one-shot
 * flags are spent). `request` is the words of the run's request.
 */
export function shapeRequest(
  memory: ILoopMemory,
  computeFirst: IComputeFirst | undefined,
  request: string
): { shape: IRequestShape; memory: ILoopMemory } {
  // A small model's reply to a repair for a guess must run code:
  // `required` (a tool call, where the server enforces it; code, by
  // prefill, in the text protocol). Measured: asked for on the first
  // reply and after errors too, it made things worse (Qwen2.5-Coder
  // 0.5B wrote `print(len(df))` with no data loaded, and repeated it).
  const forceCall =
    memory.mustRunCode && computeFirst?.forceFirstCall !== false;
  // A small model sampled greedily sends a refused step again, word for
  // word: the reply after a refusal is sampled (model/sampling.ts).
  // One that repeats a step whose output it has is begun with the answer
  // line the request asked for (Qwen2.5-Coder-0.5B printed the right
  // count, then sent `print(len(df))` until the run ended).
  const form = memory.answerNext ? askedForm(request) : null;
  const sampled = memory.explore && !!computeFirst && !form;
  return {
    shape: {
      forceCall,
      sampled,
      ...(form ? { prefill: `${form.label}:` } : {})
    },
    memory: { ...memory, mustRunCode: false, explore: false, answerNext: false }
  };
}

/** What becomes of a final answer. */
export type AnswerStep =
  /** Sent back with `text` (an observation), the transcript saying `notice`. */
  | {
      kind: 'send-back';
      text: string;
      notice: string;
      /** The answer was a guess: kept, marked, and left out of later requests. */
      guess: boolean;
      memory: ILoopMemory;
    }
  /** Checked as far as the conversation tells: next, cells left running. */
  | { kind: 'check-running' };

/** What the answer checks read besides the memory. */
export interface IAnswerInput {
  /** The conversation; its last message is the final answer. */
  messages: ReadonlyArray<ChatMessage>;
  /** Index of the run's request. */
  prompt: number;
  runsCode: IComputeCheckInput['runsCode'];
  /** The request asks about data (compute-check.ts `asksData`). */
  asksData: boolean;
  computeFirst: IComputeFirst | undefined;
}

/**
 * A small model's final answer goes back when it was not computed (twice
 * at most), then, once, when it lacks the form the request spelled out.
 */
export function afterAnswer(
  memory: ILoopMemory,
  input: IAnswerInput
): AnswerStep {
  const { computeFirst, messages, prompt } = input;
  if (!computeFirst) {
    return { kind: 'check-running' };
  }
  const repair = computeRepair({
    messages,
    prompt,
    runsCode: input.runsCode,
    asksData: input.asksData,
    protocol: computeFirst.protocol,
    repairs: memory.repairs
  });
  if (repair) {
    const mustRunCode = repair.kind === 'no-code' || repair.kind === 'failed';
    return {
      kind: 'send-back',
      text: repair.text,
      notice: COMPUTE_REPAIR_NOTICE,
      guess: mustRunCode,
      memory: { ...memory, repairs: memory.repairs + 1, mustRunCode }
    };
  }
  const answer = messages[messages.length - 1];
  const form = memory.formAsked
    ? null
    : formRepair(
        userText(messages[prompt]),
        answer?.role === 'assistant' ? (answer.content ?? '') : ''
      );
  if (form) {
    return {
      kind: 'send-back',
      text: form,
      notice: FORM_REPAIR_NOTICE,
      guess: false,
      memory: { ...memory, formAsked: true }
    };
  }
  return { kind: 'check-running' };
}

/**
 * The memory after a step refused as a repeat: the next reply is sampled,
 * or (small profile, the refused step had printed output) begun with the
 * asked answer line. `previous` is the last output before the refusal.
 */
export function afterRefusal(
  memory: ILoopMemory,
  previous: string | null,
  computeFirst: IComputeFirst | undefined
): ILoopMemory {
  return {
    ...memory,
    explore: true,
    answerNext:
      !!computeFirst && previous !== null && printedSomething(previous)
  };
}

/** The words of a user message ('' for any other). */
export function userText(message: ChatMessage | undefined): string {
  return message?.role === 'user' ? message.content : '';
}

/** The last output a tool gave (refusals are not outputs), or null. */
export function lastOutput(
  messages: ReadonlyArray<ChatMessage>
): string | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message.role === 'tool' && !message.content.startsWith('Not run:')) {
      return message.content;
    }
    if (message.role === 'user' && !message.observation) {
      return null;
    }
  }
  return null;
}

/**
 * Whether an observation is of a run that finished OK and showed output (not
 * "(no output)"); insert_cell's starts with a line of its own.
 */
function printedSomething(observation: string): boolean {
  const [status, shown] = observation.split('\nOutput:\n');
  return (
    /\bfinished OK\b/.test(status) &&
    !!shown?.trim() &&
    shown.trim() !== '(no output)'
  );
}
