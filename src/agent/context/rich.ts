/**
 * Rich outputs (execute_result, display_data) as text: text/plain before
 * HTML, pandas DataFrames as shape + head, images as one-line descriptions.
 */
import { altText, describeImage } from './images';
import {
  asText,
  clipLine,
  elideDataUris,
  stripAnsi,
  truncateMiddle
} from './text';

/** The parts of a display output the formatter reads. */
export interface IRichLike {
  data: Record<string, unknown>;
  metadata?: Record<string, unknown>;
}

const ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  times: '×'
};

function decodeEntities(text: string): string {
  return text.replace(
    /&(#x[0-9a-f]+|#\d+|[a-z]+);/gi,
    (match, code: string) => {
      if (code[0] === '#') {
        const point =
          code[1] === 'x' || code[1] === 'X'
            ? parseInt(code.slice(2), 16)
            : parseInt(code.slice(1), 10);
        return point > 0 && point <= 0x10ffff
          ? String.fromCodePoint(point)
          : match;
      }
      return ENTITIES[code.toLowerCase()] ?? match;
    }
  );
}

/**
 * HTML as readable text, without a DOM: scripts and styles dropped, block
 * ends as newlines, cells separated by spaces, entities decoded.
 */
export function htmlToText(html: string): string {
  return decodeEntities(
    html
      .replace(/<(script|style)\b[\s\S]*?<\/\1\s*>/gi, '')
      .replace(/<!--[\s\S]*?-->/g, '')
      .replace(/<br\s*\/?>|<\/(p|div|tr|li|h[1-6]|table|pre)\s*>/gi, '\n')
      .replace(/<\/(td|th)\s*>/gi, ' ')
      .replace(/<[^>]*>/g, '')
  )
    .split('\n')
    .map(line => line.replace(/[ \t]+/g, ' ').trim())
    .filter(line => line)
    .join('\n');
}

/** True for the HTML pandas renders for a DataFrame. */
export function isDataFrameHtml(html: string): boolean {
  return /<table\b[^>]*\bclass="[^"]*\bdataframe\b/i.test(html);
}

function cells(rowHtml: string): string[] {
  return [...rowHtml.matchAll(/<t[hd]\b[^>]*>([\s\S]*?)<\/t[hd]\s*>/gi)].map(
    m => htmlToText(m[1])
  );
}

function section(html: string, tag: string): string {
  const match = new RegExp(
    `<${tag}\\b[^>]*>([\\s\\S]*?)</${tag}\\s*>`,
    'i'
  ).exec(html);
  return match ? match[1] : '';
}

function rows(html: string): string[] {
  return [...html.matchAll(/<tr\b[^>]*>([\s\S]*?)<\/tr\s*>/gi)].map(m => m[1]);
}

/** Shape and column names of a pandas DataFrame from its HTML. */
export function dataFrameShape(html: string): {
  rows: number;
  columns: number;
  names: string[];
} {
  const headRows = rows(section(html, 'thead'));
  const bodyRows = rows(section(html, 'tbody'));
  // The index is rendered as <th> cells at the start of each body row.
  const indexLevels = bodyRows.length
    ? [...bodyRows[0].matchAll(/<th\b/gi)].length
    : 0;
  const names = headRows.length
    ? cells(headRows[0]).slice(Math.min(indexLevels, 1))
    : [];
  // pandas writes the true shape under truncated frames: "1000 rows × 5 columns".
  const footer =
    /<p>\s*([\d,]+)\s+rows?\s+[×x]\s+([\d,]+)\s+columns?\s*<\/p>/i.exec(html);
  if (footer) {
    return {
      rows: Number(footer[1].replace(/,/g, '')),
      columns: Number(footer[2].replace(/,/g, '')),
      names
    };
  }
  const columns = bodyRows.length
    ? [...bodyRows[0].matchAll(/<td\b/gi)].length
    : names.length;
  return { rows: bodyRows.length, columns, names };
}

/**
 * A DataFrame as "DataFrame: 1000 rows × 5 columns (a, b, …)" and the first
 * lines of its text/plain repr that fit `budget`.
 */
export function formatDataFrame(
  html: string,
  plain: string,
  budget: number
): string {
  const shape = dataFrameShape(html);
  const names = shape.names.filter(name => name);
  const shown = names.slice(0, 30).join(', ');
  const more = names.length > 30 ? `, … +${names.length - 30}` : '';
  const header = clipLine(
    `DataFrame: ${shape.rows} rows × ${shape.columns} columns` +
      (names.length ? ` (${shown}${more})` : ''),
    Math.max(80, Math.floor(budget / 3))
  );
  // The repr's own "[1000 rows x 5 columns]" footer repeats the header.
  const lines = stripAnsi(plain || htmlToText(html))
    .replace(/\n*\[[\d,]+ rows x [\d,]+ columns\]\s*$/, '')
    .split('\n');
  const kept: string[] = [header];
  let used = header.length;
  for (const [i, line] of lines.entries()) {
    const rest = lines.length - i;
    const note = `… (${rest} more lines)`;
    if (used + 1 + line.length > budget - (rest > 1 ? note.length + 1 : 0)) {
      kept.push(note);
      break;
    }
    kept.push(line);
    used += 1 + line.length;
  }
  return truncateMiddle(kept.join('\n'), budget);
}

function isImage(mime: string): boolean {
  return mime.startsWith('image/');
}

/**
 * A display output as text within `budget`: images described (never
 * base64), DataFrames summarised, otherwise text/plain, then Markdown,
 * LaTeX, JSON or HTML-as-text, in that order of preference.
 */
export function formatRich(output: IRichLike, budget: number): string {
  const data = output.data;
  const mimes = Object.keys(data);
  const plain = stripAnsi(asText(data['text/plain']));
  const html = asText(data['text/html']);
  const images = mimes.filter(isImage);
  const parts: string[] = [];
  // A figure's text/plain ("<Figure size 640x480 with 1 Axes>") is its alt.
  let plainUsed = false;
  for (const mime of images) {
    const alt = altText(mime, plain, output.metadata);
    plainUsed = plainUsed || (alt !== '' && alt === plain.trim());
    parts.push(describeImage(mime, data[mime], alt));
  }
  const textBudget = Math.max(0, budget - parts.join('\n').length - 1);
  let text = '';
  if (html && isDataFrameHtml(html)) {
    text = formatDataFrame(html, plain, textBudget);
  } else if (plain && !plainUsed && !(images.length && /^<.*>$/.test(plain))) {
    text = plain;
  } else if (!images.length) {
    const markdown = asText(data['text/markdown'] ?? data['text/latex']);
    const json = data['application/json'];
    text =
      markdown ||
      (json !== undefined ? JSON.stringify(json, null, 1) : '') ||
      (html ? htmlToText(html) : '');
    if (!text) {
      const others = mimes.filter(m => m !== 'text/plain');
      text = others.length ? `[rich output: ${others.join(', ')}]` : '';
    }
  }
  if (text) {
    parts.unshift(truncateMiddle(elideDataUris(text), textBudget));
  }
  return parts.join('\n');
}
