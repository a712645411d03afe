/**
 * An output whose values are all missing (NaN, NaT, <NA>): a result that
 * ran without an error and answers nothing.
 *
 * Measured with Qwen2.5-Coder-1.5B in the walk (ui-tests/walk): asked for
 * revenue (units × unit_price) per region, it ran
 * `df.groupby('region')['units'].sum() * df['unit_price']`, which pandas
 * aligns on the index (four regions against 200 row numbers) into 204 NaN,
 * and answered "The total revenue per region is NaN."; the follow-up built
 * on that code. A person sees at a glance that a column of NaN is a bug, not
 * an answer; the model, told the request again, reads it as one. Fix
 * This Cell then copied that code into the broken cell, which ran without
 * an error: "fixed".
 */
import type { CellOutput } from '../ports';

/**
 * A printed missing value: pandas' and numpy's spellings. Not `None`: a
 * call that returns nothing prints it (`print(df.to_csv(path))`), and such
 * a cell ran as meant.
 */
const MISSING = /^(?:NaN|nan|NaT|<NA>)[,)\]]?$/;

/** A printed number: 12, -3.5, 1,257,092.43, 1e-05, 42%. */
const NUMBER = /^[-+]?(?:\d[\d,]*(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?%?[,)\]]?$/i;

/** pandas' footer and elision lines, which are no values. */
const FOOTER =
  /^(?:Name|Length|dtype|Freq):|^\.+$|^\[\d+ rows x \d+ columns\]$/;

/**
 * Whether the values an output prints are (almost) all missing: at least
 * one missing value, and at least nine for every number. A line's first
 * word is its label (a Series' index, a row number, "Total:"), so it is
 * not counted, unless it is the line's only word (a scalar printed alone).
 * A frame with a few gaps among its numbers is not this.
 */
export function allValuesMissing(output: string): boolean {
  let missing = 0;
  let numbers = 0;
  for (const line of output.split('\n')) {
    const text = line.trim();
    if (!text || FOOTER.test(text)) {
      continue;
    }
    const words = text.split(/\s+/);
    for (const word of words.length > 1 ? words.slice(1) : words) {
      if (MISSING.test(word)) {
        missing++;
      } else if (NUMBER.test(word)) {
        numbers++;
      }
    }
  }
  return missing > 0 && missing >= 9 * numbers;
}

/**
 * Said under such an output to a small model instead of "if the output
 * answers it, reply now": the values are not an answer, the usual cause,
 * and the next reply is code. The names in the example are placeholders.
 */
export const MISSING_VALUES_REQUEST =
  'Every value the code printed is missing (NaN), so it does not answer the request yet. ' +
  'The usual cause is an operation between values whose indexes do not line up, such as a ' +
  'grouped result times a column of every row: compute per row first ' +
  "(df['total'] = df['a'] * df['b']), then group; or a column that holds no numbers. " +
  'Reply with the corrected code in one ```python block.';

/**
 * Whether a cell's outputs print values and all of them are missing: its
 * stdout and the plain text of its results (a plot or an empty output is
 * not this).
 */
export function outputsAllMissing(outputs: ReadonlyArray<CellOutput>): boolean {
  const printed = outputs.map(output => {
    if (output.type === 'stream') {
      return output.name === 'stdout' ? output.text : '';
    }
    if (output.type === 'error') {
      return '';
    }
    const text = output.data['text/plain'];
    return typeof text === 'string' ? text : '';
  });
  return allValuesMissing(printed.join('\n'));
}

/** Why Fix does not count such a run as fixed. */
export const MISSING_VALUES_PROBLEM =
  'It ran without an error, but every value it printed is missing (NaN): an operation between ' +
  'values whose indexes do not line up (a grouped result times a column of every row: compute ' +
  'per row first, then group), or a column that holds no numbers.';
