/**
 * Scoring one finished task: answer checks read the final message, Python
 * checks run in the task's final kernel, image checks count plots in the
 * notebook.
 */
import type { INotebookPort } from '../../src/agent/ports';
import { extractAnswer, extractNamedAnswers, matches } from './answers';
import type { Checker, ExpectedValue } from './task';

/** What a check can look at. */
export interface ICheckContext {
  /** The agent's final message (empty when it never answered). */
  finalText: string;
  notebook: INotebookPort;
  /** Expected values from the generator (expected.json). */
  expected: Record<string, unknown>;
  /**
   * Image checks count only the cells that ran since this snapshot (cell
   * id → execution count then): a follow-up question's plot must be new.
   */
  ranSince?: ReadonlyMap<string, number | null>;
}

/** The verdict of one check, with a line saying why. */
export interface ICheckResult {
  pass: boolean;
  detail: string;
}

const IMAGE_MIMES = ['image/png', 'image/jpeg', 'image/svg+xml'];

/** Run `checker` against a finished task. */
export async function runChecker(
  checker: Checker,
  context: ICheckContext
): Promise<ICheckResult> {
  switch (checker.type) {
    case 'answer':
      return checkAnswer(checker, context);
    case 'python':
      return checkPython(checker.code, checker.expected_key, context);
    case 'image':
      return checkImages(checker.min ?? 1, context.notebook, context.ranSince);
    case 'all': {
      const details: string[] = [];
      for (const inner of checker.checks) {
        const result = await runChecker(inner, context);
        details.push(result.detail);
        if (!result.pass) {
          return { pass: false, detail: details.join('; ') };
        }
      }
      return { pass: true, detail: details.join('; ') };
    }
  }
}

/** The expected value of a check, looked up by key when it names one. */
export function resolveExpected(
  check: { expected?: unknown; expected_key?: string },
  expected: Record<string, unknown>
): unknown {
  if (check.expected_key === undefined) {
    return check.expected;
  }
  if (!(check.expected_key in expected)) {
    throw new Error(`no expected value named ${check.expected_key}`);
  }
  return expected[check.expected_key];
}

function checkAnswer(
  checker: Extract<Checker, { type: 'answer' }>,
  context: ICheckContext
): ICheckResult {
  const want = resolveExpected(checker, context.expected) as
    ExpectedValue | Record<string, ExpectedValue>;
  if (typeof want === 'object' && want !== null) {
    const got = extractNamedAnswers(context.finalText);
    const wrong = Object.entries(want).filter(
      ([name, value]) => !matches(got.get(name), value, checker)
    );
    return {
      pass: wrong.length === 0,
      detail: wrong.length
        ? `wrong or missing: ${wrong.map(([n, v]) => `@${n}[${got.get(n) ?? '—'}] (expected ${v})`).join(', ')}`
        : `all ${Object.keys(want).length} named answers match`
    };
  }
  const got = extractAnswer(context.finalText);
  const pass = matches(got, want, checker);
  return {
    pass,
    detail:
      got === null
        ? `no ANSWER line (expected ${want})`
        : `answer ${got} ${pass ? '=' : '≠'} expected ${want}`
  };
}

async function checkPython(
  code: string,
  expectedKey: string | undefined,
  context: ICheckContext
): Promise<ICheckResult> {
  const answer = extractAnswer(context.finalText);
  const expected =
    expectedKey === undefined ? null : context.expected[expectedKey];
  // JSON literals are valid Python literals for strings and numbers.
  const prelude =
    `__answer__ = ${answer === null ? 'None' : JSON.stringify(answer)}\n` +
    `__expected__ = ${expected === null || expected === undefined ? 'None' : JSON.stringify(expected)}\n`;
  // Not silent: a silent execution may not publish its error output.
  const result = await context.notebook.executeCode(prelude + code, {
    softTimeoutMs: 60_000,
    hardTimeoutMs: 60_000
  });
  if (result.status === 'ok') {
    return { pass: true, detail: 'python check passed' };
  }
  const error = result.outputs.find(o => o.type === 'error');
  const why =
    error && error.type === 'error'
      ? `${error.ename}: ${error.evalue}`.slice(0, 200)
      : result.status;
  return { pass: false, detail: `python check failed: ${why}` };
}

async function checkImages(
  min: number,
  notebook: INotebookPort,
  ranSince?: ReadonlyMap<string, number | null>
): Promise<ICheckResult> {
  const cells = (await notebook.getCells()).filter(
    cell =>
      !ranSince ||
      !ranSince.has(cell.id) ||
      ranSince.get(cell.id) !== cell.executionCount
  );
  const images = cells
    .flatMap(cell => cell.outputs)
    .filter(
      o =>
        (o.type === 'display_data' || o.type === 'execute_result') &&
        IMAGE_MIMES.some(mime => mime in o.data)
    ).length;
  return {
    pass: images >= min,
    detail: `${images} image output(s) (need ${min})`
  };
}
