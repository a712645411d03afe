/**
 * Shared helpers of the benchmarks: printing, order statistics and target
 * lines. Benchmarks report on stdout (lint keeps console.log out of code)
 * and exit non-zero only when they crash, never on a missed target.
 */

/** Print one line on stdout. */
export function print(line = ''): void {
  process.stdout.write(`${line}\n`);
}

/** The q-quantile (0..1) of an ascending array (nearest rank, lower). */
export function quantile(sorted: readonly number[], q: number): number {
  if (!sorted.length) {
    return NaN;
  }
  const index = Math.min(sorted.length - 1, Math.floor(q * sorted.length));
  return sorted[index];
}

/** Median, p90, min and max of samples. */
export interface ISummary {
  median: number;
  p90: number;
  min: number;
  max: number;
  n: number;
}

/** Summarise samples (they are copied, not sorted in place). */
export function summarize(samples: readonly number[]): ISummary {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    median: quantile(sorted, 0.5),
    p90: quantile(sorted, 0.9),
    min: sorted[0] ?? NaN,
    max: sorted[sorted.length - 1] ?? NaN,
    n: sorted.length
  };
}

/** A number with a fixed number of decimals. */
export function fixed(value: number, digits = 2): string {
  return value.toFixed(digits);
}

/**
 * Print `target: <what>: PASS|MISS (<figure>, <ratio> of target)` and
 * return whether it passed. `ratio` is figure/target for upper bounds and
 * target/figure for lower bounds, so a ratio ≤ 1 always means "met".
 */
export function target(
  what: string,
  figure: number,
  limit: number,
  kind: 'at-most' | 'at-least',
  unit = ''
): boolean {
  const pass = kind === 'at-most' ? figure <= limit : figure >= limit;
  const ratio = kind === 'at-most' ? figure / limit : limit / figure;
  print(
    `target: ${what}: ${pass ? 'PASS' : 'MISS'} ` +
      `(${fixed(figure)}${unit} vs ${kind === 'at-most' ? '≤' : '≥'} ${limit}${unit}; ` +
      `${fixed(ratio)}× of the limit)`
  );
  return pass;
}

/**
 * Run a benchmark's main: exit 0 when it finishes (targets met or not),
 * 1 with the error on stderr when it crashes.
 */
export function runMain(main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    error => {
      console.error(error);
      process.exit(1);
    }
  );
}
