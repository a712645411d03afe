/**
 * The few assertions the port contract cases use. They run where the
 * cases run: under Jest in Node, and inside a JupyterLab page (where Jest's
 * `expect` does not exist), so they are plain functions that throw an
 * Error saying what was expected and what was seen.
 */
import type { CellOutput } from '../../ports';

/** Thrown by a failed check. */
export class CheckError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CheckError';
  }
}

function show(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text === undefined
    ? String(value)
    : text.length > 300
      ? `${text.slice(0, 150)}…(${text.length} chars)…${text.slice(-150)}`
      : text;
}

/** `condition` must hold. */
export function ok(condition: unknown, what: string): void {
  if (!condition) {
    throw new CheckError(`expected ${what}`);
  }
}

/** `actual` must equal `expected` (deep, as JSON). */
export function equal(actual: unknown, expected: unknown, what: string): void {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) {
    throw new CheckError(
      `${what}: expected ${show(expected)}, got ${show(actual)}`
    );
  }
}

/** `text` must match `pattern`. */
export function matches(text: string, pattern: RegExp, what: string): void {
  if (!pattern.test(text)) {
    throw new CheckError(
      `${what}: expected to match ${pattern}, got ${show(text)}`
    );
  }
}

/** `value` must be below `limit`. */
export function below(value: number, limit: number, what: string): void {
  if (!(value < limit)) {
    throw new CheckError(`${what}: expected below ${limit}, got ${value}`);
  }
}

/** `action` must reject with an error whose name is `name` and whose message matches `pattern`. */
export async function rejects(
  action: () => Promise<unknown>,
  name: string,
  pattern: RegExp,
  what: string
): Promise<void> {
  let error: unknown = null;
  try {
    await action();
  } catch (caught) {
    error = caught;
  }
  ok(error, `${what} to be refused`);
  equal((error as Error).name, name, `${what}: error name`);
  matches((error as Error).message, pattern, `${what}: error message`);
}

/** Resolve after `ms`. */
export function sleep(ms: number): Promise<void> {
  return new Promise(resolve => setTimeout(resolve, ms));
}

/** Wait until `predicate` holds; throws after `ms`. */
export async function until(
  predicate: () => boolean | Promise<boolean>,
  ms: number,
  what: string
): Promise<number> {
  const started = Date.now();
  while (!(await predicate())) {
    if (Date.now() - started > ms) {
      throw new CheckError(`expected ${what} within ${ms} ms`);
    }
    await sleep(25);
  }
  return Date.now() - started;
}

/** All stream text of `outputs` (of one stream, if named). */
export function streamText(
  outputs: readonly CellOutput[],
  name?: 'stdout' | 'stderr'
): string {
  return outputs
    .map(o => (o.type === 'stream' && (!name || o.name === name) ? o.text : ''))
    .join('');
}

/** The ename of the first error output, if any. */
export function errorName(outputs: readonly CellOutput[]): string | undefined {
  const error = outputs.find(o => o.type === 'error');
  return error?.type === 'error' ? error.ename : undefined;
}
