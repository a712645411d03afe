/**
 * Dates stored as text, said to a small model when a request or a step
 * groups or plots by a unit of time ("by hour of day", "per month", "each
 * year", "over time").
 *
 * Measured with Qwen2.5-Coder-1.5B on Generate: asked for "the mean visits
 * by hour of day", it grouped by the whole `timestamp` text (672 groups of
 * one row); asked for "the total rainfall of each year", it grouped by the
 * `date` text. A CSV's dates load as text (`object`), and nothing in the
 * error-free output tells a small model so. A person would parse the
 * column first; the hint names the column, the parse and the accessors.
 */
import type { IVariableRow } from '../tools/variables-probe';

/** A unit of time. */
const UNIT =
  '(?:hours?|days?|dates?|weeks?|weekdays?|months?|years?|quarters?|seasons?)';

/**
 * Words that group, filter, count or plot by a unit of time: "by hour of
 * day", "per month", "of each year", "which month", "the busiest day",
 * "monthly mean", "in 2024", "over time". An adjective that describes the
 * data does not ask by time: measured, "traffic.csv has hourly website
 * visits. How many visits in total?" with the hint made the 1.5B count
 * the rows by hour (672) instead of summing the visits.
 */
const TIME_WORDS = new RegExp(
  [
    `\\b(?:by|per|each|every|which|what|of|in|that|this|same|busiest|quietest|coldest|warmest|hottest|wettest|driest|best|worst|highest|lowest|first|last)\\s+(?:the\\s+)?(?:\\w+\\s+)?${UNIT}\\b`,
    `\\b(?:hourly|daily|weekly|monthly|yearly|annual|quarterly)\\s+(?:\\w+\\s+)?(?:means?|average|totals?|sums?|counts?|max(?:imum)?|min(?:imum)?|medians?|trend|revenue|rain(?:fall)?|temperatures?)\\b`,
    '\\bhour of (?:the )?day\\b|\\bday of (?:the )?week\\b|\\bweekdays?\\b',
    '\\bover time\\b|\\btime series\\b|\\btrend\\b|\\bseasonal',
    '\\b(?:in|during|since|before|after|from)\\s+(?:19|20)\\d\\d\\b'
  ].join('|'),
  'i'
);

/** Column names that usually hold dates or times. */
const DATE_NAME = /date|time|day|month|period|stamp|when/i;

/** A value that starts like a date (ISO, or day/month/year with / or .). */
const DATE_VALUE =
  /^\s*["']?(?:\d{4}-\d{1,2}-\d{1,2}|\d{1,2}[/.]\d{1,2}[/.]\d{2,4})(?:[ T]\d{1,2}:\d{2})?/;

/** Dtypes pandas gives a column it read as text. */
const TEXT_DTYPE = /^(?:object|str|string)$/;

/** A column of dates kept as text, in a frame of the kernel or in a data file. */
export interface ITextDateColumn {
  /** The frame that holds it, or null for a file not loaded yet. */
  frame: string | null;
  column: string;
  /** Already parsed (a datetime64 column): the accessors, no parse, are named. */
  parsed?: boolean;
}

/** Dtypes of a parsed date column. */
const DATETIME_DTYPE = /^datetime64/;

/** Whether `text` groups, counts or plots by a unit of time. */
export function asksByTime(text: string): boolean {
  return TIME_WORDS.test(text);
}

/**
 * The text columns of the kernel's DataFrames whose names say date or time,
 * then their parsed date columns (measured: with `date` parsed by the
 * step before, the 1.5B still grouped "the monthly mean" by the whole date).
 */
export function frameDateColumns(
  rows: ReadonlyArray<IVariableRow> | null
): ITextDateColumn[] {
  const frames = (rows ?? []).filter(
    row => row.type === 'pandas.DataFrame' && row.columns
  );
  const text = frames.flatMap(row =>
    row
      .columns!.filter(
        ([column, dtype]) => TEXT_DTYPE.test(dtype) && DATE_NAME.test(column)
      )
      .map(([column]) => ({ frame: row.name, column }))
  );
  const parsed = frames.flatMap(row =>
    row
      .columns!.filter(([, dtype]) => DATETIME_DTYPE.test(dtype))
      .map(([column]) => ({ frame: row.name, column, parsed: true }))
  );
  return [...text, ...parsed];
}

/**
 * The columns of the previewed files (context/data-preview.ts, code blocks
 * of a file's first lines) whose first value looks like a date: a header
 * line, then the first line with as many fields.
 */
export function previewDateColumns(preview: string | null): ITextDateColumn[] {
  const found: ITextDateColumn[] = [];
  for (const block of (preview ?? '').matchAll(/```\n([\s\S]*?)\n```/g)) {
    const lines = block[1].split('\n');
    for (const [index, line] of lines.entries()) {
      const sep = [',', ';', '\t', '|'].find(s => line.split(s).length > 1);
      const next = lines[index + 1];
      if (!sep || next === undefined) {
        continue;
      }
      const names = line
        .split(sep)
        .map(name => name.trim().replace(/^"|"$/g, ''));
      const values = next.split(sep);
      if (values.length !== names.length) {
        continue;
      }
      for (const [i, name] of names.entries()) {
        if (name && DATE_VALUE.test(values[i]) && !DATE_VALUE.test(name)) {
          found.push({ frame: null, column: name });
        }
      }
      break;
    }
  }
  return found;
}

/**
 * The hint for `text` (a request or a step) and the date columns kept as
 * text; null when it asks nothing by time or there is no such column.
 */
export function timeHint(
  text: string,
  columns: ReadonlyArray<ITextDateColumn>
): string | null {
  const first = columns[0];
  if (!first || !asksByTime(text)) {
    return null;
  }
  const frame = first.frame ?? 'df';
  const col = `${frame}['${first.column}']`;
  const others = columns
    .slice(1, 3)
    .map(c => `\`${c.column}\``)
    .join(', ');
  const accessors =
    `\`${col}.dt.hour\` (hour of day), \`${col}.dt.date\` (day), ` +
    `\`${col}.dt.to_period('M')\` (month) or \`${col}.dt.year\` (year)`;
  return first.parsed
    ? `\`${first.column}\` holds dates: to group by time, group by ${accessors}, not by \`${first.column}\` itself.`
    : `\`${first.column}\`${others ? ` (and ${others})` : ''} holds dates as text: to group or plot by time, parse it first, ` +
        `\`${col} = pd.to_datetime(${col})\`, then use ${accessors}.`;
}
