/**
 * Reading the agent's answer from its final message and comparing it with
 * the expected value. Pure functions: unit-tested without a kernel.
 */
import type { ExpectedValue } from './task';

/** The value of the last `ANSWER: <value>` line, or null. */
export function extractAnswer(text: string): string | null {
  const matches = [...text.matchAll(/^[\s>*_`#-]*ANSWER\s*[:=]\s*(.+)$/gim)];
  if (!matches.length) {
    return null;
  }
  return cleanValue(matches[matches.length - 1][1]);
}

/** Named answers written as `@name[value]` (DABench's format). */
export function extractNamedAnswers(text: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const match of text.matchAll(/@([A-Za-z_][\w]*)\[([^\]]*)\]/g)) {
    found.set(match[1], cleanValue(match[2]));
  }
  return found;
}

/** Strip markdown emphasis, code ticks, quotes and a trailing period. */
function cleanValue(raw: string): string {
  return raw.replace(/^[\s*_`"']+/, '').replace(/[\s*_`"'.]+$/, '');
}

/** A number written as 1,234.5 / 1 234.5 / 12.5% / $3.20, or null. */
export function parseNumber(text: string): number | null {
  const cleaned = text
    .replace(/[$€£%]/g, '')
    .replace(/(\d)[,\s](?=\d{3}\b)/g, '$1')
    .trim();
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(cleaned)) {
    return null;
  }
  return Number(cleaned);
}

/** How close a number must be. */
export interface ITolerance {
  tolerance?: number;
  relative?: number;
}

/** Whether `actual` (as reported) matches `expected`. */
export function matches(
  actual: string | null | undefined,
  expected: ExpectedValue,
  tol: ITolerance = {}
): boolean {
  if (actual === null || actual === undefined) {
    return false;
  }
  if (typeof expected === 'number') {
    const value = parseNumber(actual);
    if (value === null) {
      return false;
    }
    const allowed = Math.max(
      tol.tolerance ?? 1e-6 * Math.max(1, Math.abs(expected)),
      (tol.relative ?? 0) * Math.abs(expected)
    );
    // A tolerance is inclusive: 60.265 is within 0.005 of 60.27, although
    // binary floating point puts their difference a hair above 0.005.
    return Math.abs(value - expected) <= allowed * (1 + 1e-9) + 1e-12;
  }
  const norm = (s: string) => s.trim().toLowerCase().replace(/\s+/g, ' ');
  return norm(actual) === norm(expected);
}
