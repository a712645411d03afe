/**
 * When the loop stops on its own. Small pure helpers, tested directly.
 */
import { describeFailure } from '../context/failure-focus';
import { isErrorObservation } from '../context/observations';
import type { IAssistantTurn } from '../model/accumulator';

/** Default maximum number of model calls in one run. */
export const DEFAULT_MAX_STEPS = 30;

/** How many identical failures in a row end a run. */
export const MAX_REPEATED_FAILURES = 3;

/** The model answered without asking for tools: the task is done. */
export function isFinalAnswer(turn: IAssistantTurn): boolean {
  return turn.toolCalls.length === 0;
}

/** The run used all of its steps. */
export function reachedStepLimit(step: number, maxSteps: number): boolean {
  return step >= maxSteps;
}

const ERROR_LINE =
  /^[A-Za-z_][\w.]*(Error|Exception|Interrupt|Exit|Warning)\b.*$/m;

/**
 * What makes two failures "the same": the exception line when there is one
 * (without cell ids or execution counts, which change every attempt).
 */
export function failureSignature(output: string): string {
  const line = ERROR_LINE.exec(output)?.[0] ?? output.split('\n')[0];
  return line
    .replace(/[0-9a-f]{8}-[0-9a-f-]{27,}/gi, '<id>')
    .replace(/\d+/g, '<n>')
    .trim();
}

/**
 * Tracks consecutive failures with the same signature. Edits and reads
 * between attempts (insert a fix, run it, fail again) do not break a streak;
 * only code that runs without error does.
 */
export class FailureStreak {
  private _signature = '';
  private _count = 0;

  /** Record a tool result; returns true when the streak reached the limit. */
  record(ok: boolean, output: string, ranCode: boolean): boolean {
    if (ok && !ranCode) {
      return false;
    }
    if (ok) {
      this._signature = '';
      this._count = 0;
      return false;
    }
    const signature = failureSignature(output);
    this._count = signature === this._signature ? this._count + 1 : 1;
    this._signature = signature;
    return this._count >= MAX_REPEATED_FAILURES;
  }

  /** The repeated failure, for the user. */
  get signature(): string {
    return this._signature;
  }
}

/** Identical code-running steps in a row before the run ends (the second is not run). */
export const MAX_REPEATED_STEPS = 2;

/** What the model is told instead of running a step it just ran. */
export const REPEATED_STEP_MESSAGE =
  'Not run: exactly what you ran in your previous step, whose results are above. ' +
  'Try something different, or answer without tools if the task is done.';

/** Whether a tool message is the refusal of a repeated step. */
export function isRepeatRefusal(text: string): boolean {
  return (
    text === REPEATED_STEP_MESSAGE ||
    text.startsWith('Not run: this code already ran') ||
    text.startsWith('Not run: this is the code that just failed')
  );
}

/** Output quoted back under a repeated step, at most. */
const QUOTED_OUTPUT_CHARS = 400;

/**
 * The refusal of a repeated step, with what that step gave when it is
 * known: small models do not look back ("whose results are above"); told
 * the error, or shown the output again, they fix the code or answer
 * (measured with Qwen2.5-Coder-1.5B, which otherwise sent the same code
 * until the run ended, or answered with the guess it wrote before running).
 */
export function repeatedStepMessage(previous: string | null): string {
  if (!previous) {
    return REPEATED_STEP_MESSAGE;
  }
  const failure = describeFailure(previous);
  if (failure) {
    return (
      `Not run: this is the code that just ${failure}\n` +
      'Write different code that avoids that error.'
    );
  }
  if (isErrorObservation(previous)) {
    return REPEATED_STEP_MESSAGE;
  }
  return (
    `Not run: this code already ran, and its output was:\n${quotedOutput(previous)}\n` +
    'If that answers the request, answer now with those values and no code; otherwise try something different.'
  );
}

/**
 * An observation's output without its status lines ("cell_id: … finished OK
 * …", and insert_cell's line before it), cut to a quote.
 */
function quotedOutput(observation: string): string {
  const at = observation.indexOf('\nOutput:\n');
  const output = (
    at >= 0
      ? observation.slice(at + '\nOutput:\n'.length)
      : observation.split('\n').slice(1).join('\n')
  ).trim();
  const quoted =
    output.length > QUOTED_OUTPUT_CHARS
      ? `${output.slice(0, QUOTED_OUTPUT_CHARS)}…`
      : output;
  return quoted || '(no output)';
}

/**
 * Whether code holds nothing to run: blank lines, comments, `pass`, `...`
 * and strings on their own (a docstring) only. Small models close a turn
 * with such a block (the walk, Qwen2.5-Coder-1.5B, after its cell failed:
 * `# The code above correctly calculates the total revenue per region`,
 * twice). Run, it put a cell of comments in the user's notebook, and
 * "(no output)" (or the string, echoed) read to the model as a step that
 * worked.
 */
export function holdsNoCode(code: string): boolean {
  // Strings written as statements of their own go first: a docstring over
  // several lines. Not an f-string's (its braces run code), and not one
  // that is part of a statement (`q = """…"""` keeps its `q =`).
  return code
    .replace(TRIPLE_QUOTED, '')
    .split('\n')
    .every(line => {
      const text = line.trim();
      return (
        text === '' ||
        text.startsWith('#') ||
        DOES_NOTHING.test(text) ||
        STRING_STATEMENT.test(text)
      );
    });
}

/** A triple-quoted string (with its prefix, not `f`), or one left open at the end. */
const TRIPLE_QUOTED = /(?<![\w"'])[rRbBuU]{0,2}("""|''')[\s\S]*?(?:\1|$)/g;
/** Statements that do nothing. */
const DOES_NOTHING = /^(?:pass|\.\.\.)(?:\s*#.*)?$/;
/** A one-line string on its own (not an f-string). */
const STRING_STATEMENT =
  /^[rRbBuU]{0,2}(?:"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')(?:\s*#.*)?$/;

/**
 * Whether a turn asks to run code and every call of it that runs code
 * carries only comments (`holdsNoCode`); a call that names a cell to run
 * carries no code of its own and is not one of them.
 */
export function runsOnlyComments(
  tools: {
    runsCode(call: { name: string; arguments: string }): boolean;
    codeOfCall(call: { name: string; arguments: string }): string | undefined;
  },
  calls: ReadonlyArray<{ name: string; arguments: string }>
): boolean {
  const running = calls.filter(call => tools.runsCode(call));
  return (
    running.length > 0 &&
    running.every(call => {
      const code = tools.codeOfCall(call);
      return code !== undefined && holdsNoCode(code);
    })
  );
}

/** What the model is told instead of running a block of comments (see `holdsNoCode`). */
export function commentsOnlyMessage(previous: string | null): string {
  const head = 'Not run: that block holds only comments, no code.';
  if (!previous) {
    return `${head} Write Python that computes what was asked and prints it.`;
  }
  const failure = describeFailure(previous);
  if (failure) {
    return `${head} The code before it ${failure}\nWrite code that avoids that error.`;
  }
  if (isErrorObservation(previous)) {
    return `${head} The code before it failed: write code that works.`;
  }
  return (
    `${head} The last code's output was:\n${quotedOutput(previous)}\n` +
    'If that answers the request, answer now with those values and no code; otherwise write code that computes it.'
  );
}

/** A call's arguments with keys sorted, so key order does not make steps differ. */
function canonicalArguments(raw: string): string {
  try {
    return JSON.stringify(JSON.parse(raw), (_key, value: unknown) =>
      value && typeof value === 'object' && !Array.isArray(value)
        ? Object.fromEntries(
            Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
              a < b ? -1 : a > b ? 1 : 0
            )
          )
        : typeof value === 'string'
          ? value.trimEnd()
          : value
    );
  } catch {
    return raw.trim();
  }
}

/** What becomes of a step's calls: `run`, `skip` (a repeat, refused), or `stop` the run. */
export type RepeatVerdict = 'run' | 'skip' | 'stop';

/**
 * Small models loop: they write the same code again after seeing its output.
 * A step that runs code and asks for exactly the calls of the step before it
 * is not run (the model is told why: no duplicate cells in the user's
 * notebook); a third identical step in a row ends the run. Steps that only
 * read (e.g. `wait` on a running cell) are never counted.
 */
export class RepeatedSteps {
  private _signature = '';
  private _count = 0;

  /** Record a step's calls: `run` it, `skip` it (a repeat), or `stop` the run. */
  record(
    calls: ReadonlyArray<{ name: string; arguments: string }>,
    runsCode: (call: { name: string; arguments: string }) => boolean
  ): RepeatVerdict {
    const signature = JSON.stringify(
      calls.map(call => [call.name, canonicalArguments(call.arguments)])
    );
    if (!calls.some(call => runsCode(call)) || signature !== this._signature) {
      this._signature = signature;
      this._count = 1;
      return 'run';
    }
    this._count += 1;
    return this._count > MAX_REPEATED_STEPS ? 'stop' : 'skip';
  }
}
