/**
 * Code that multiplies sums: two columns of a grouped sum multiplied
 * together, which is not the grouped sum of their product.
 *
 * Measured with Qwen2.5-Coder-1.5B in every walk of stops 54–56
 * (ui-tests/walk): asked "the total revenue (units × unit_price) per
 * region", it ran
 *
 *     region_revenue = df.groupby('region')[['units', 'unit_price']].sum()
 *     region_revenue['total_revenue'] = region_revenue['units'] * region_revenue['unit_price']
 *
 * and answered North 655766.16 where the right figure is 10120.57. The
 * code runs clean and prints plausible numbers, so nothing else marks it.
 * Σunits × Σprice is never a total of units × price (it is off by a
 * factor of about the group's size), so a product of two sums is judged a
 * mistake wherever it appears; a quotient of sums (a weighted average) is
 * not judged, nor a sum times a constant.
 *
 * The same mistake without groups, measured on the eval's Q&A set (3 of
 * 35 tasks in one run of the 1.5B, 2026-12-07): `df['units'] *
 * df['unit_price'].sum()`, each row's units times the total of all prices
 * (`.sum()` applies before `*`); the model then answered with the first
 * row of the 2000 it printed. So a column times another column's sum of
 * the same frame, or two such sums, is judged too.
 *
 * Read from the code's text, not parsed: a product whose two sides are
 * each a grouped sum — a name bound to `….groupby(…)….sum()` (or
 * `.resample(…)`, `.agg('sum')`), a column of it (`g['units']`,
 * `g.units`), a summed column of a name bound to the grouping itself
 * (`g = df.groupby(…)`, `g['units'].sum()`), or such a sum written inline. A name bound again to
 * anything else stops counting from there on. Named or per-column
 * aggregations (`agg(n=('units', 'count'), …)`) are not judged: a count
 * times a mean is a sum.
 */
import type { ChatMessage } from '../types';
import { statedNumbers, unsupportedNumbers } from './claims';

/**
 * A product of sums, its two sides as the code names them: `grouped`, two
 * grouped sums; `totals`, two columns' sums (Σunits × Σunit_price);
 * `row-by-total` and `total-by-row`, a column times another column's sum
 * (`df['units'] * df['unit_price'].sum()`: `.sum()` applies before `*`).
 */
export interface IMultipliedSums {
  kind: 'grouped' | 'totals' | 'row-by-total' | 'total-by-row';
  left: string;
  right: string;
}

const NAME = '[A-Za-z_]\\w*';
const QUOTED = `(['"])([^'"\\n]+)\\`;

/** A grouping followed, later in the expression, by a plain sum. */
const GROUPED_SUM =
  /\.(?:groupby|resample)\([\s\S]*\.(?:sum\(|agg\(\s*(?:(['"])sum\1|sum\b)\s*\))/;

/** An inline grouped sum at an operand's end (left of `*`) or start (right of it). */
const INLINE_SUM_END =
  /\.(?:groupby|resample)\([^()]*(?:\([^()]*\)[^()]*)*\)\s*(?:\[\s*\[?\s*(['"])([^'"\n]+)\1[^\]]*\]?\s*\])?\s*\.(?:sum\([^()]*\)|agg\(\s*(['"])sum\3\s*\))\s*$/;
const INLINE_SUM_START =
  /^\s*\(*\s*[A-Za-z_][\w.]*\.(?:groupby|resample)\([^()]*(?:\([^()]*\)[^()]*)*\)\s*(?:\[\s*\[?\s*(['"])([^'"\n]+)\1[^\]]*\]?\s*\])?\s*\.(?:sum\(|agg\(\s*(['"])sum\3)/;

const COLUMN_END = new RegExp(
  `\\b(${NAME})\\s*\\[\\s*${QUOTED}2\\s*\\]\\s*\\)*\\s*$`
);
const ATTRIBUTE_END = new RegExp(`\\b(${NAME})\\.(${NAME})\\s*\\)*\\s*$`);
const NAME_END = new RegExp(`(?:^|[^\\w.])(${NAME})\\s*\\)*\\s*$`);
const COLUMN_START = new RegExp(
  `^\\s*\\(*\\s*(${NAME})\\s*\\[\\s*${QUOTED}2\\s*\\]`
);
const ATTRIBUTE_START = new RegExp(
  `^\\s*\\(*\\s*(${NAME})\\.(${NAME})\\b(?!\\s*[([.])`
);
const NAME_START = new RegExp(`^\\s*\\(*\\s*(${NAME})\\b(?!\\s*[([.])`);

/** A frame's column, summed or not, at an operand's end or start: `df['units']`, `df.units.sum()`. */
const SUM = '(\\s*\\.sum\\(\\s*\\))?';
const FRAME_COLUMN_END = new RegExp(
  `\\b(${NAME})\\s*\\[\\s*${QUOTED}2\\s*\\]${SUM}\\s*\\)*\\s*$`
);
const FRAME_ATTRIBUTE_END = new RegExp(
  `(?:^|[^\\w.\\]])(${NAME})\\.(${NAME})${SUM}\\s*\\)*\\s*$`
);
const FRAME_COLUMN_START = new RegExp(
  `^\\s*\\(*\\s*(${NAME})\\s*\\[\\s*${QUOTED}2\\s*\\]${SUM}(?!\\s*[([.])`
);
const FRAME_ATTRIBUTE_START = new RegExp(
  `^\\s*\\(*\\s*(${NAME})\\.(${NAME})${SUM}(?!\\s*[([.])`
);

/** A grouping not yet aggregated, as a whole value: `df.groupby('region')`. */
const GROUPING =
  /\.(?:groupby|resample)\([^()]*(?:\([^()]*\)[^()]*)*\)\s*\)*\s*$/;

/** A plain assignment `name = value` (not `==`, not `name[…] =`, not `+=`). */
const ASSIGNMENT = new RegExp(`^\\s*(${NAME})\\s*=(?!=)([\\s\\S]*)$`);

/**
 * The first product of two grouped sums in `code`, or null when there is
 * none.
 */
export function multipliedSums(code: string): IMultipliedSums | null {
  const names: INames = { sums: new Set(), groupings: new Set() };
  for (const statement of statements(code)) {
    const product = productOfSums(statement, names);
    if (product) {
      return product;
    }
    const assigned = ASSIGNMENT.exec(statement);
    if (assigned) {
      const [, name, value] = assigned;
      names.sums.delete(name);
      names.groupings.delete(name);
      if (GROUPED_SUM.test(value)) {
        names.sums.add(name);
      } else if (GROUPING.test(value)) {
        names.groupings.add(name);
      }
    }
  }
  return null;
}

/**
 * The names bound so far: to a grouped sum (`g = df.groupby(…).sum()`), and
 * to a grouping whose columns are summed later (`g = df.groupby(…)`, then
 * `g['units'].sum()`).
 */
interface INames {
  sums: Set<string>;
  groupings: Set<string>;
}

/** A product in `statement` whose two sides are sums (see IMultipliedSums). */
function productOfSums(
  statement: string,
  { sums, groupings }: INames
): IMultipliedSums | null {
  // `a.mul(b)` is `a * (b)`.
  const text = statement.replace(/\.mul\(/g, ' * (');
  const quoted = insideStrings(text);
  for (let at = text.indexOf('*'); at >= 0; at = text.indexOf('*', at + 1)) {
    if (text[at + 1] === '*' || text[at - 1] === '*' || quoted[at]) {
      continue;
    }
    const before = text.slice(0, at);
    const after = text.slice(at + 1).replace(/^=/, '');
    const left = groupedSumAt(before, sums, AT_END);
    const right = left && groupedSumAt(after, sums, AT_START);
    if (left && right && left !== right) {
      return { kind: 'grouped', left, right };
    }
    const columns = [
      columnAt(before, FRAME_COLUMN_END, FRAME_ATTRIBUTE_END),
      columnAt(after, FRAME_COLUMN_START, FRAME_ATTRIBUTE_START)
    ] as const;
    const product = groupings.has(columns[0]?.frame ?? '')
      ? summedGroupColumns(...columns)
      : columnsWithSum(...columns);
    if (product) {
      return product;
    }
  }
  return null;
}

/** A frame's column found by one of two patterns (subscript, attribute), and whether it is summed. */
function columnAt(
  text: string,
  subscript: RegExp,
  attribute: RegExp
): { frame: string; column: string; summed: boolean } | null {
  const column = subscript.exec(text);
  if (column) {
    return { frame: column[1], column: column[3], summed: !!column[4] };
  }
  const named = attribute.exec(text);
  return named
    ? { frame: named[1], column: named[2], summed: !!named[3] }
    : null;
}

/**
 * Two columns of one frame multiplied, one of them or both summed first;
 * null for anything else (one column times itself, two frames, no sum).
 */
function columnsWithSum(
  left: ReturnType<typeof columnAt>,
  right: ReturnType<typeof columnAt>
): IMultipliedSums | null {
  if (
    !left ||
    !right ||
    left.frame !== right.frame ||
    left.column === right.column ||
    !(left.summed || right.summed)
  ) {
    return null;
  }
  return {
    kind:
      left.summed && right.summed
        ? 'totals'
        : left.summed
          ? 'total-by-row'
          : 'row-by-total',
    left: left.column,
    right: right.column
  };
}

/**
 * Two columns of one grouping, each summed (`g['units'].sum() *
 * g['unit_price'].sum()`): grouped sums; null for anything else.
 */
function summedGroupColumns(
  left: ReturnType<typeof columnAt>,
  right: ReturnType<typeof columnAt>
): IMultipliedSums | null {
  return left?.summed &&
    right?.summed &&
    left.frame === right.frame &&
    left.column !== right.column
    ? { kind: 'grouped', left: left.column, right: right.column }
    : null;
}

/** The patterns of a grouped sum at one end of an operand. */
interface IOperandPatterns {
  inline: RegExp;
  column: RegExp;
  attribute: RegExp;
  name: RegExp;
}

const AT_END: IOperandPatterns = {
  inline: INLINE_SUM_END,
  column: COLUMN_END,
  attribute: ATTRIBUTE_END,
  name: NAME_END
};
const AT_START: IOperandPatterns = {
  inline: INLINE_SUM_START,
  column: COLUMN_START,
  attribute: ATTRIBUTE_START,
  name: NAME_START
};

/**
 * The grouped sum `text` ends with (`AT_END`, left of `*`) or starts with
 * (`AT_START`, right of it): a column's name, or the name as written.
 */
function groupedSumAt(
  text: string,
  sums: ReadonlySet<string>,
  patterns: IOperandPatterns
): string | null {
  const inline = patterns.inline.exec(text);
  if (inline) {
    return inline[2] ?? 'the grouped sum';
  }
  const column = patterns.column.exec(text);
  if (column) {
    return sums.has(column[1]) ? column[3] : null;
  }
  const attribute = patterns.attribute.exec(text);
  if (attribute) {
    return sums.has(attribute[1]) ? attribute[2] : null;
  }
  const name = patterns.name.exec(text);
  return name && sums.has(name[1]) ? name[1] : null;
}

/**
 * The code's statements in order: comments dropped, lines joined while a
 * bracket is open or a line ends with a backslash.
 */
function statements(code: string): string[] {
  const out: string[] = [];
  let current = '';
  let depth = 0;
  for (const raw of code.split('\n')) {
    const line = withoutComment(raw);
    current = current ? `${current} ${line.trim()}` : line;
    depth += bracketBalance(line);
    if (depth > 0 || /\\\s*$/.test(line)) {
      current = current.replace(/\\\s*$/, '');
      continue;
    }
    depth = 0;
    if (current.trim()) {
      out.push(current);
    }
    current = '';
  }
  if (current.trim()) {
    out.push(current);
  }
  return out;
}

/** For each character of `text`, whether it is inside a string literal. */
function insideStrings(text: string): boolean[] {
  const inside: boolean[] = new Array(text.length).fill(false);
  let quote = '';
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (quote) {
      inside[i] = true;
      if (char === '\\') {
        inside[i + 1] = true;
        i++;
      } else if (char === quote) {
        quote = '';
      }
    } else if (char === '"' || char === "'") {
      quote = char;
      inside[i] = true;
    }
  }
  return inside;
}

/** A line without its `#` comment (a `#` inside a string is kept). */
function withoutComment(line: string): string {
  const quoted = insideStrings(line);
  for (let at = line.indexOf('#'); at >= 0; at = line.indexOf('#', at + 1)) {
    if (!quoted[at]) {
      return line.slice(0, at);
    }
  }
  return line;
}

/** Opened minus closed brackets on a line, outside strings. */
function bracketBalance(line: string): number {
  const quoted = insideStrings(line);
  let balance = 0;
  for (let i = 0; i < line.length; i++) {
    if (quoted[i]) {
      continue;
    }
    if ('([{'.includes(line[i])) {
      balance++;
    } else if (')]}'.includes(line[i])) {
      balance--;
    }
  }
  return balance;
}

/** What the code computes, in words. */
function computes(product: IMultipliedSums): string {
  const { left, right } = product;
  switch (product.kind) {
    case 'grouped':
      return `${left} summed per group times ${right} summed per group`;
    case 'totals':
      return `the sum of ${left} times the sum of ${right}`;
    case 'row-by-total':
      return `each row's ${left} times the sum of all ${right}`;
    case 'total-by-row':
      return `the sum of all ${left} times each row's ${right}`;
  }
}

/** The mistake, in words: what it computes, and what that is not. */
function mistake(product: IMultipliedSums): string {
  const { left, right } = product;
  return `${computes(product)}, which is not the total of ${left} × ${right} over the rows`;
}

/**
 * Said under such a run's output to a small model instead of "if the
 * output answers it, reply now": what is wrong, and the code that is right.
 */
export function multipliedSumsRequest(product: IMultipliedSums): string {
  const { left, right } = product;
  return (
    `The code computes ${mistake(product)}, so the printed values do not answer the request. ` +
    `Compute the product per row first (df['total'] = df['${left}'] * df['${right}']), ` +
    'then sum it (per group, if the request asks per group). ' +
    'Reply with the corrected code in one ```python block.'
  );
}

/** Why Fix does not count such a run as fixed. */
export function multipliedSumsProblem(product: IMultipliedSums): string {
  return (
    `It ran without an error, but it computes ${mistake(product)}. ` +
    'Compute the product per row first, then sum it.'
  );
}

/** The transcript's line under an answer whose numbers such code printed. */
export function multipliedSumsNotice(product: IMultipliedSums): string {
  return `⚠ The numbers above come from code that computes ${mistake(product)}: check them before you use them.`;
}

/**
 * The product of sums behind a turn's final answer: the code of a call
 * whose output shows a number the answer states, which no other output of
 * the turn shows; null when there is none. `messages[turnStart]` is the
 * turn's user message; `codeOf` reads a call's code (the tools' rule).
 */
export function answerFromMultipliedSums(
  messages: ReadonlyArray<ChatMessage>,
  turnStart: number,
  codeOf: (call: { name: string; arguments: string }) => string | undefined
): IMultipliedSums | null {
  const last = messages[messages.length - 1];
  if (last?.role !== 'assistant' || last.toolCalls?.length || !last.content) {
    return null;
  }
  const stated = statedNumbers(last.content);
  if (!stated.length) {
    return null;
  }
  const turn = messages.slice(turnStart);
  const code = new Map<string, string>();
  for (const message of turn) {
    if (message.role === 'assistant') {
      for (const call of message.toolCalls ?? []) {
        code.set(call.id, codeOf(call) ?? '');
      }
    }
  }
  const flagged: string[] = [];
  const others: string[] = [];
  let product: IMultipliedSums | null = null;
  for (const message of turn) {
    if (message.role !== 'tool') {
      continue;
    }
    const found = multipliedSums(code.get(message.toolCallId) ?? '');
    if (found) {
      product ??= found;
      flagged.push(message.content);
    } else {
      others.push(message.content);
    }
  }
  if (!product) {
    return null;
  }
  // Stated numbers the flagged outputs show and no other output does.
  const unshownByOthers = unsupportedNumbers(last.content, others);
  const unshownByFlagged = new Set(unsupportedNumbers(last.content, flagged));
  return unshownByOthers.some(number => !unshownByFlagged.has(number))
    ? product
    : null;
}
