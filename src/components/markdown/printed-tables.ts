/**
 * Keeps a printed table a table. Models paste what a cell printed (a
 * DataFrame, a Series, a NumPy array) into their answer as plain lines, and
 * Markdown joins the lines of a paragraph into one: "region units 0 East 297
 * 1 West 150". Lines laid out in columns, as pandas and NumPy print them, are
 * put in a code block here, where they keep their layout.
 *
 * A line is "in columns" when two or more spaces (or a tab) separate some of
 * its values; two or more such lines in a row whose columns line up (a value's
 * left or right edge at the same place) are a printed table. Prose with two
 * spaces after a full stop is one line at a time and rarely lines up; a
 * Markdown table (pipes, its `---` row), a list, a heading, a quote and
 * fenced code are left as they are.
 */

/**
 * The fence a printed table gets: `text`, so that it is not highlighted as
 * code and its block offers "Copy" but not "Insert as cell"
 * (code-block-actions.ts).
 */
export const TABLE_FENCE = '```text';
/** A fence line (```, ~~~): its marker. */
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
/** Two or more spaces, or a tab, between two values. */
const GAP = /\S(?: {2,}|\t+)\S/;
/** Markdown constructs a line of a printed table does not start with. */
const MARKDOWN_START = /^ {0,3}(?:[-*+] |\d{1,9}[.)] |#|>|\|)/;
/** A Markdown table's delimiter row (`---|:--:`). */
const DELIMITER_ROW = /^ *\|? *:?-+:? *(?:\| *:?-+:? *)+\|? *$/;
/** The row pandas prints for the rows it leaves out of a long DataFrame (`..  ...`). */
const ELLIPSIS_ROW = /^ *\.\.[. ]*$/;
/** What pandas prints after a Series or a long DataFrame. */
const FOOTER =
  /^(?:Name: .*dtype: \S+|Length: \d+, dtype: \S+|dtype: \S+|\[\d+ rows x \d+ columns\])$/;

/** `block` (one block of a reply: see markdown-blocks.ts) with its printed tables in code blocks. */
export function fencePrintedTables(block: string): string {
  if (!GAP.test(block)) {
    return block; // nearly every block: no two values apart
  }
  const lines = block.split('\n');
  const out: string[] = [];
  let fence: string | null = null;
  let afterProse = false; // whether the last line out is a line of prose
  for (let i = 0; i < lines.length;) {
    const line = lines[i];
    const marker = FENCE.exec(line)?.[1];
    if (fence !== null || marker) {
      if (marker && fence === null) {
        fence = marker;
      } else if (
        marker &&
        marker[0] === fence![0] &&
        marker.length >= fence!.length
      ) {
        fence = null;
      }
      out.push(line);
      afterProse = false;
      i++;
      continue;
    }
    const end = tableEnd(lines, i);
    if (end === i) {
      out.push(line);
      afterProse = true;
      i++;
      continue;
    }
    // A header above the rows without two values apart (a one-column
    // DataFrame's "     units"): indented, as pandas prints it.
    if (afterProse && /^ +\S/.test(out[out.length - 1])) {
      const header = out.pop()!;
      out.push(TABLE_FENCE, header);
    } else {
      out.push(TABLE_FENCE);
    }
    let last = end;
    while (last < lines.length && FOOTER.test(lines[last].trim())) {
      last++;
    }
    out.push(...lines.slice(i, last), '```');
    afterProse = false;
    i = last;
  }
  return out.join('\n');
}

/**
 * Whether `text` (what a cell printed) holds a printed table: a tool card
 * keeps such an output's lines whole and scrolls it sideways, and wraps any
 * other (a traceback's message stays in view).
 */
export function holdsPrintedTable(text: string): boolean {
  if (!GAP.test(text)) {
    return false;
  }
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (tableEnd(lines, i) > i) {
      return true;
    }
  }
  return false;
}

/** Where the printed table that starts at `lines[start]` ends; `start` when none does. */
function tableEnd(lines: string[], start: number): number {
  let end = start;
  while (end < lines.length) {
    const line = lines[end];
    if (end > start && ELLIPSIS_ROW.test(line)) {
      end++; // the rows pandas leaves out: the table goes on after it
      continue;
    }
    const above = ELLIPSIS_ROW.test(lines[end - 1] ?? '')
      ? lines[end - 2]
      : lines[end - 1];
    if (!inColumns(line) || (end > start && !linedUp(above, line))) {
      break;
    }
    end++;
  }
  while (end > start && ELLIPSIS_ROW.test(lines[end - 1])) {
    end--;
  }
  if (end - start < 2) {
    return start;
  }
  return lines.slice(start, end).some(line => DELIMITER_ROW.test(line))
    ? start
    : end;
}

function inColumns(line: string): boolean {
  return (
    GAP.test(line) &&
    !MARKDOWN_START.test(line) &&
    !DELIMITER_ROW.test(line) &&
    !FENCE.test(line)
  );
}

/** Whether two lines share a column edge: a value's first or last character at the same place. */
function linedUp(a: string, b: string): boolean {
  const edges = columnEdges(a);
  for (const edge of columnEdges(b)) {
    if (edges.has(edge)) {
      return true;
    }
  }
  return false;
}

/**
 * The edges of a line's columns, as `L<index>` and `R<index>`: where each
 * value (words one space apart) ends, and where each but the first starts.
 * (Every line's first value starts at its start, which would line up any two
 * lines of prose.)
 */
function columnEdges(line: string): Set<string> {
  const edges = new Set<string>();
  const text = line.replace(/\t/g, '    ');
  const value = /\S+(?: \S+)*/g;
  let first = true;
  for (let match = value.exec(text); match; match = value.exec(text)) {
    if (!first) {
      edges.add(`L${match.index}`);
    }
    edges.add(`R${match.index + match[0].length}`);
    first = false;
  }
  return edges;
}
