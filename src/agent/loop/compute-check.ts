/**
 * The compute check, for small models: an answer is sent back once or
 * twice when it was not computed.
 *
 * Measured with Qwen2.5-Coder 0.5B/1.5B: asked a question about a data
 * file, such a model answers at once with invented numbers, or runs code and
 * then states numbers no output shows. A capable model computes by itself;
 * a small one does when it is told, in its next turn, what is missing. So a
 * final answer is returned with a repair request when
 *   - the run has executed no code, and the request asks about data (names a
 *     data file of the notebook's folder, or asks about what the kernel
 *     holds: a follow-up), or the answer states numbers the user did not give;
 *   - or code ran, but none of it without an error, and the request asks
 *     about data: nothing computed the answer, whatever its form;
 *   - or the answer states numbers that no output (nor the user) shows.
 * Pure: it reads the conversation, it changes nothing.
 */
import { computedOutputs, unsupportedNumbers } from '../context/claims';
import {
  isCleanRunObservation,
  isErrorObservation
} from '../context/observations';
import type { ChatMessage } from '../types';

/** Repair requests per run, at most: then the answer stands as it is (and is marked). */
export const MAX_COMPUTE_REPAIRS = 2;

/** What the check needs to know about the run. */
export interface IComputeCheckInput {
  /** The conversation; its last message is the model's final answer. */
  messages: ReadonlyArray<ChatMessage>;
  /** Index of the run's request (the user's message). */
  prompt: number;
  /** Whether a call runs code (the tools' own rule). */
  runsCode: (call: { name: string; arguments: string }) => boolean;
  /**
   * The request asks about data: it names data files of the notebook's
   * folder, or asks about what the kernel holds (context/data-question.ts).
   */
  asksData: boolean;
  /** How the model runs code: tool calls, or fenced blocks (text protocol). */
  protocol: 'native' | 'text';
  /** Repair requests already made in this run. */
  repairs: number;
}

/** How to run code, in the words of the protocol. */
function howToRun(protocol: 'native' | 'text'): string {
  return protocol === 'text'
    ? 'in one ```python block'
    : 'with insert_cell (run: true)';
}

/** A repair request: what is missing, and the words that ask for it. */
export interface IComputeRepair {
  /**
   * `no-code`: nothing ran yet (the next reply must be code); `failed`:
   * code ran, all of it failed (the next reply must be code too);
   * `unbacked`: numbers no output shows; `typed`: numbers only code that
   * typed them in printed.
   */
  kind: 'no-code' | 'failed' | 'unbacked' | 'typed';
  text: string;
}

/** The repair request for a final answer, or null when it stands. */
export function computeRepair(
  input: IComputeCheckInput
): IComputeRepair | null {
  if (input.repairs >= MAX_COMPUTE_REPAIRS) {
    return null;
  }
  const { messages, prompt } = input;
  const answer = messages[messages.length - 1];
  if (answer?.role !== 'assistant' || answer.toolCalls?.length) {
    return null;
  }
  const text = answer.content ?? '';
  const run = messages.slice(prompt);
  const ranCode = run.some(
    m => m.role === 'assistant' && m.toolCalls?.some(c => input.runsCode(c))
  );
  const userWords = messages.flatMap(m =>
    m.role === 'user' && !m.observation ? [m.content] : []
  );
  if (!ranCode) {
    const invented = unsupportedNumbers(text, userWords);
    if (!input.asksData && !invented.length) {
      return null;
    }
    return {
      kind: 'no-code',
      text:
        // The guess itself is not shown again (context-keeper.ts), so this
        // asks afresh rather than pointing at it.
        'Do not answer from memory: no code has run yet. ' +
        `Write Python that computes the answer from the data ${howToRun(input.protocol)}, print the result, ` +
        'and answer after you see the output.'
    };
  }
  // What the tools returned (the text protocol's outputs are tool messages
  // here too); not the agent's own notes to the model, repairs included.
  const outputs = run.flatMap(m => (m.role === 'tool' ? [m.content] : []));
  // Measured with Qwen2.5-Coder-1.5B on follow-ups: every cell of the turn
  // failed (or was refused as a repeat), then "ANSWER: 2024-01" or
  // "ANSWER: 1", from memory; the number check lets dates and small
  // counts pass.
  if (
    input.asksData &&
    outputs.some(saysLine(isErrorObservation)) &&
    !outputs.some(saysLine(isCleanRunObservation))
  ) {
    return {
      kind: 'failed',
      text:
        'None of your code has run without an error yet, so nothing computed this answer. ' +
        `Write code that avoids the last error ${howToRun(input.protocol)}, print the result, ` +
        'and answer after you see the output.'
    };
  }
  const unbacked = unsupportedNumbers(text, [...outputs, ...userWords]);
  if (unbacked.length) {
    return {
      kind: 'unbacked',
      text:
        `Your answer states ${listed(unbacked)}, which no output shows. ` +
        `Compute and print ${unbacked.length > 1 ? 'them' : 'it'} ${howToRun(input.protocol)}, ` +
        'then answer with the printed values.'
    };
  }
  // Measured: asked to compute a guess, Qwen2.5-Coder wrote
  // `total = 10000000.00; print(total)` (and `print(2000)` with the code
  // begun for it): printed, not computed.
  const computed = computedOutputs(run, input.runsCode);
  const copied = unsupportedNumbers(text, [...computed, ...userWords]);
  if (!copied.length) {
    return null;
  }
  return {
    kind: 'typed',
    text:
      `Your answer states ${listed(copied)}, which your code typed in instead of computing. ` +
      `Compute ${copied.length > 1 ? 'them' : 'it'} from the data ${howToRun(input.protocol)}, ` +
      'print the result, then answer with the printed values.'
  };
}

/**
 * The answer ending the run stands uncomputed: no code ran, or none of it
 * ran clean, and the request asks about data (the repairs are spent or
 * were not allowed). The transcript marks it (session/runner.ts).
 */
export function standsUncomputed(
  input: Omit<IComputeCheckInput, 'repairs'>
): boolean {
  const repair = computeRepair({ ...input, repairs: 0 });
  return (
    !!repair &&
    (repair.kind === 'failed' || (repair.kind === 'no-code' && input.asksData))
  );
}

/** A tool output has a line the test holds for (a native tool's result puts its run's status line after its own). */
function saysLine(test: (line: string) => boolean) {
  return (output: string) => output.split('\n').some(test);
}

function listed(numbers: ReadonlyArray<string>): string {
  return numbers.slice(0, 5).join(', ');
}
