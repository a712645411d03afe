/**
 * Whether the rankings a text states ("East has the highest revenue", "West
 * has the lowest") are what the printed tables show: claims.ts checks a
 * text's numbers, and a ranking holds none.
 *
 * Measured in the walk (ui-tests/walk) with Qwen2.5-Coder-1.5B: Generate's
 * notebook printed units per region (North 408, East 297, …) and its
 * summary said "East has the highest revenue, followed by North and South";
 * the notebook was "Verified", since the summary stated no number.
 *
 * A ranking is judged only where the outputs print a table that has its
 * label: rows of a label and numbers (a Series, a DataFrame, a printed
 * dict). The claim holds when, in some such table, some column has the
 * label at its top (or bottom); when the label is in tables and at the top
 * of none, the outputs do not show it. A label in no table is not judged
 * (it may be printed as a sentence, `print(f"Top: {best}")`). A clause with
 * several labels ("the top products are A, B and C"), a second or third
 * place, or a negation is not a claim of one extreme.
 */

import { withinBudget } from './text';

/** Which end of a column a claim names. */
export type Extreme = 'top' | 'bottom';

/** A ranking the outputs do not show. */
export interface IUnshownRanking {
  /** The clause that states it, trimmed, without its full stop. */
  clause: string;
  label: string;
  extreme: Extreme;
  /** What a table that has the label shows: its end in its first column, then the label's, e.g. "North 408, East 297". */
  shown: string;
}

/** A table of the outputs: labelled rows of numbers, one value per column. */
interface ITable {
  rows: Array<{ label: string; values: number[] }>;
}

/** Words naming the top or the bottom of a ranking. */
const TOP =
  /\b(?:highest|largest|biggest|greatest|most|top|maximum|best|leading|strongest)\b/gi;
const BOTTOM =
  /\b(?:lowest|smallest|least|fewest|minimum|worst|weakest|bottom)\b/gi;

/**
 * Not a claim of one extreme: a rank after the first, a few at the top
 * ("the top 3", "the top products are …"), a negation, a comparison, a
 * bound ("at least 200") or time ("the most recent month").
 */
const NOT_ONE_EXTREME = new RegExp(
  [
    String.raw`\b(?:second|third|fourth|fifth|2nd|3rd|4th|5th|next|not|never|no|nor|neither|except|than|behind|after)\b|n't\b`,
    String.raw`\b(?:are|were|include|includes|including)\b`,
    String.raw`\b(?:top|bottom)\s+(?:\d+|two|three|four|five|ten)\b`,
    String.raw`\bat\s+(?:least|most)\b|\bmost\s+(?:recent|likely|important|notably)\b`
  ].join('|'),
  'i'
);

/** A printed number: 12, -3.5, 1,257,092.43, 1e-05, 42%, $1,200.50. */
const NUMBER = /^[-+]?[$€£]?(?:\d[\d,]*(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?%?$/i;

/** pandas' footer and elision lines. */
const FOOTER =
  /^(?:Name|Length|dtype|Freq):|^\.+$|^\[\d+ rows x \d+ columns\]$/;

/** Labels that are words of tables' shapes, not things ranked (`describe()`'s rows, totals). */
const NOT_A_THING =
  /^(?:count|mean|std|min|max|sum|total|all|other|others|nan|none|true|false|index|median|\d+%)$/i;

/** Characters of code, never of a printed label: code lines are no rows. */
const CODE_CHARACTERS = /[=()[\]{}'"`:;]/;

/** How much output text is read for tables, at most. */
const TABLE_BUDGET = 500_000;

/**
 * The rankings `text` states that the tables of `evidence` (output texts)
 * do not show; empty when every ranking it states is shown or not judged.
 */
export function unshownRankings(
  text: string,
  evidence: ReadonlyArray<string>
): IUnshownRanking[] {
  if (!extremeWords(text).length) {
    return [];
  }
  const tables = printedTables(evidence);
  const labels = new Set(
    tables.flatMap(table => table.rows.map(row => row.label))
  );
  if (!labels.size) {
    return [];
  }
  const unshown: IUnshownRanking[] = [];
  for (const claim of rankingClaims(text, labels)) {
    const holding = tables.filter(table =>
      table.rows.some(row => row.label === claim.label)
    );
    if (holding.some(table => atExtreme(table, claim.label, claim.extreme))) {
      continue;
    }
    unshown.push({ ...claim, shown: whatIsShown(holding[0], claim) });
  }
  return unshown;
}

/** The claims of one extreme `text` states about one of `labels`. */
function rankingClaims(
  text: string,
  labels: ReadonlySet<string>
): Array<{ clause: string; label: string; extreme: Extreme }> {
  const prose = text
    .replace(/```[\s\S]*?(```|$)/g, ' ')
    .replace(/`[^`\n]*`/g, ' ');
  const claims: Array<{ clause: string; label: string; extreme: Extreme }> = [];
  for (const sentence of prose.split(/(?<=[.!?])\s+|\n+/)) {
    if (!extremeWords(sentence).length) {
      continue;
    }
    // The sentence as one clause when it names one label; else each clause
    // between commas and semicolons on its own ("East has the highest
    // revenue, followed by North, and West the lowest").
    const whole = claimOf(sentence, labels);
    if (whole) {
      claims.push(whole);
      continue;
    }
    // (Not at a thousands separator: "$393,007.27".) A clause with two
    // extremes is two joined: "retail having the highest (696) and public
    // the lowest (667)", as the eval's 1.5B wrote.
    for (const clause of sentence.split(/;|,(?!\d{3}\b)/)) {
      const parts =
        extremeWords(clause).length > 1
          ? clause.split(/\b(?:and|while|whereas|but)\b/)
          : [clause];
      for (const part of parts) {
        const claim = claimOf(part, labels);
        if (claim) {
          claims.push(claim);
        }
      }
    }
  }
  return claims;
}

/** The claim `clause` makes: one extreme, one label, nothing that makes it another rank. */
function claimOf(
  clause: string,
  labels: ReadonlySet<string>
): { clause: string; label: string; extreme: Extreme } | null {
  const found = extremeWords(clause);
  if (found.length !== 1 || NOT_ONE_EXTREME.test(clause)) {
    return null;
  }
  const named = [...labels].filter(label => names(clause, label));
  return named.length === 1
    ? {
        clause: clause.trim().replace(/[.!?]+$/, ''),
        label: named[0],
        extreme: found[0]
      }
    : null;
}

function extremeWords(text: string): Extreme[] {
  return [
    ...[...text.matchAll(TOP)].map(() => 'top' as const),
    ...[...text.matchAll(BOTTOM)].map(() => 'bottom' as const)
  ];
}

/** Whether `text` names `label` as a whole word (case as printed). */
function names(text: string, label: string): boolean {
  const escaped = label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![\\w-])${escaped}(?![\\w-])`).test(text);
}

/** Whether some column of `table` has `label` at `extreme` (ties hold). */
function atExtreme(table: ITable, label: string, extreme: Extreme): boolean {
  const row = table.rows.find(r => r.label === label);
  if (!row) {
    return false;
  }
  return row.values.some((value, column) => {
    const values = table.rows.map(r => r.values[column]);
    const end = extreme === 'top' ? Math.max(...values) : Math.min(...values);
    return value === end;
  });
}

/** "North 408, East 297": the table's end in its first column, and the label's value. */
function whatIsShown(
  table: ITable,
  claim: { label: string; extreme: Extreme }
): string {
  type Row = ITable['rows'][number];
  const further = (a: Row, b: Row) =>
    claim.extreme === 'top'
      ? b.values[0] > a.values[0]
      : b.values[0] < a.values[0];
  const end = table.rows.reduce((a, b) => (further(a, b) ? b : a));
  const own = table.rows.find(row => row.label === claim.label);
  return `${end.label} ${end.values[0]}, ${claim.label} ${own?.values[0]}`;
}

/** The tables the outputs print: runs of rows with a label and as many numbers each. */
function printedTables(evidence: ReadonlyArray<string>): ITable[] {
  const tables: ITable[] = [];
  for (const part of withinBudget(evidence, TABLE_BUDGET)) {
    tables.push(...dictTables(part));
    let run: ITable['rows'] = [];
    const close = () => {
      if (
        run.length >= 2 &&
        new Set(run.map(r => r.label)).size === run.length
      ) {
        tables.push({ rows: run });
      }
      run = [];
    };
    for (const line of part.split('\n')) {
      const text = line.trim();
      if (FOOTER.test(text)) {
        continue;
      }
      const row = tableRow(text);
      if (!row || (run.length && run[0].values.length !== row.values.length)) {
        close();
      }
      if (row) {
        run.push(row);
      }
    }
    close();
  }
  return tables;
}

/**
 * A printed row: a label (after a DataFrame's row number) and the numbers
 * after it. "East    297", "0   East    297   1178.83", "2024-01  204".
 */
function tableRow(line: string): { label: string; values: number[] } | null {
  if (!line || CODE_CHARACTERS.test(line)) {
    return null;
  }
  const words = line.split(/\s+/);
  let first = words.length;
  while (first > 0 && NUMBER.test(words[first - 1])) {
    first--;
  }
  const values = words.slice(first).map(numberValue);
  let label = words.slice(0, first);
  // A DataFrame's row number before its label.
  if (label.length > 1 && /^\d+$/.test(label[0])) {
    label = label.slice(1);
  }
  const name = label.join(' ');
  if (!values.length || !name || NOT_A_THING.test(name) || name.length < 2) {
    return null;
  }
  return { label: name, values };
}

/** `{'East': 350112.51, 'North': 655766.16}` printed: one table of one column. */
function dictTables(text: string): ITable[] {
  const tables: ITable[] = [];
  for (const dict of text.match(/\{[^{}]{0,20000}\}/g) ?? []) {
    const rows = [
      ...dict.matchAll(/['"]([^'"\n]{2,80})['"]\s*:\s*([-+]?\d[\d.eE+-]*)/g)
    ]
      .map(m => ({ label: m[1], values: [Number(m[2])] }))
      .filter(row => Number.isFinite(row.values[0]));
    if (
      rows.length >= 2 &&
      new Set(rows.map(r => r.label)).size === rows.length
    ) {
      tables.push({ rows });
    }
  }
  return tables;
}

function numberValue(word: string): number {
  return Number(word.replace(/[$€£,%]/g, ''));
}
