/**
 * Plain-text helpers for observations: terminal escapes, carriage-return
 * progress bars, data URIs and head + tail truncation within a budget.
 */

// CSI (colours, cursor moves), OSC (titles, hyperlinks) and the two-byte
// escapes. \r and \b are left for `applyCarriageReturns`.
const ANSI =
  // eslint-disable-next-line no-control-regex
  /\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b\[[0-?]*[ -/]*[@-~]|\u001b[@-Z\\-_]/g;

/** Remove ANSI escape sequences (tracebacks and progress bars are coloured). */
export function stripAnsi(text: string): string {
  // Every escape starts with ESC: without one (most output), skip the
  // regex, which costs ~2 ms a MB even when it matches nothing.
  return text.includes('\u001b') ? text.replace(ANSI, '') : text;
}

/**
 * Render carriage returns and backspaces as a terminal would, so a line
 * rewritten in place (tqdm, pip, Keras progress bars) keeps only what was
 * last visible on it. `\r\n` line ends count as plain `\n`.
 */
export function applyCarriageReturns(text: string): string {
  if (!text.includes('\r') && !text.includes('\b')) {
    return text;
  }
  return text.replace(/\r+\n/g, '\n').split('\n').map(renderLine).join('\n');
}

function renderLine(line: string): string {
  if (!line.includes('\r') && !line.includes('\b')) {
    return line;
  }
  // A later, shorter write overwrites only its own columns, as on a terminal.
  const screen: string[] = [];
  let cursor = 0;
  for (const ch of line) {
    if (ch === '\r') {
      cursor = 0;
    } else if (ch === '\b') {
      cursor = Math.max(0, cursor - 1);
    } else {
      screen[cursor++] = ch;
    }
  }
  return screen.join('');
}

// ipykernel compiles each cell to <tmp>/ipykernel_<pid>/<hash of its code>.py, which warnings and plain
// tracebacks name. The pid is new with every kernel: the model reads the path without it, so the same output
// reads the same after a restart, and in a rerun of the eval (where it moved a greedy model's answer once).
const KERNEL_CELL_FILE = /([\\/])ipykernel_\d+([\\/]-?\d+\.py)/g;

/** `text` with ipykernel's cell files named without the kernel's process id. */
export function withoutKernelPid(text: string): string {
  return text.replace(KERNEL_CELL_FILE, '$1ipykernel$2');
}

/** Clean stream text as the user saw it: no escapes, progress bars collapsed. */
export function cleanStreamText(text: string): string {
  return applyCarriageReturns(stripAnsi(text));
}

const DATA_URI =
  /data:([\w.+-]+\/[\w.+-]+)((?:;[\w.+-]+=[\w.+-]+)*);base64,[A-Za-z0-9+/=]{64,}/g;

/** Replace base64 data URIs (inline images in HTML or reprs) by their size. */
export function elideDataUris(text: string): string {
  return text.replace(
    DATA_URI,
    (match, mime: string) =>
      `data:${mime};base64,[${formatBytes(base64Bytes(match))} elided]`
  );
}

/** Approximate decoded size of base64 text (whitespace and prefix ignored). */
export function base64Bytes(base64: string): number {
  const body = base64.slice(base64.indexOf(',') + 1).replace(/\s/g, '');
  const padding = body.endsWith('==') ? 2 : body.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((body.length * 3) / 4) - padding);
}

/** A byte count for people and models: "~22 KB", "~1.3 MB". */
export function formatBytes(bytes: number): string {
  if (bytes < 1024 * 1024) {
    return `~${Math.max(1, Math.round(bytes / 1024))} KB`;
  }
  return `~${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function elisionMarker(lines: number, chars: number): string {
  const what =
    lines > 0 ? `${lines} lines, ${chars} characters` : `${chars} characters`;
  return `\n… [${what} elided] …\n`;
}

function countNewlines(text: string, from: number, to: number): number {
  let count = 0;
  for (let i = text.indexOf('\n', from); i !== -1 && i < to;) {
    count++;
    i = text.indexOf('\n', i + 1);
  }
  return count;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/**
 * Keep the head (about 60%) and tail of `text` within `budget` characters,
 * the marker included, saying how many lines and characters were elided.
 * Cuts snap to line ends when one is near, so rows are not split.
 */
export function truncateMiddle(text: string, budget: number): string {
  if (text.length <= budget) {
    return text;
  }
  if (budget <= 0) {
    return '';
  }
  // Size the marker for the worst case so the result never exceeds budget.
  const available = budget - elisionMarker(text.length, text.length).length;
  if (available < 16) {
    return text.slice(0, Math.max(0, budget - 1)) + '…';
  }
  let headEnd = Math.ceil(available * 0.6);
  let tailStart = text.length - (available - headEnd);
  const newlineInHead = text.lastIndexOf('\n', headEnd - 1);
  if (newlineInHead >= headEnd * 0.8) {
    headEnd = newlineInHead + 1;
  }
  const newlineInTail = text.indexOf('\n', tailStart);
  if (newlineInTail !== -1 && newlineInTail - tailStart < available * 0.08) {
    tailStart = newlineInTail + 1;
  }
  // Never split a surrogate pair (emoji, some CJK).
  if (headEnd > 0 && isHighSurrogate(text.charCodeAt(headEnd - 1))) {
    headEnd--;
  }
  if (isHighSurrogate(text.charCodeAt(tailStart - 1))) {
    tailStart++;
  }
  const head = text.slice(0, headEnd).replace(/\n$/, '');
  const tail = text.slice(tailStart);
  const lines = countNewlines(text, headEnd, tailStart);
  return head + elisionMarker(lines, tailStart - headEnd) + tail;
}

/** Clip one line to `max` characters with an ellipsis. */
export function clipLine(line: string, max: number): string {
  return line.length <= max ? line : line.slice(0, max - 1) + '…';
}

/** nbformat multiline strings arrive as a string or a list of lines. */
export function asText(value: unknown): string {
  if (Array.isArray(value)) {
    return value.join('');
  }
  return typeof value === 'string' ? value : '';
}

/**
 * The first `budget` characters of `texts`, text by text (the last one cut):
 * what a check of outputs reads of outputs that can be huge.
 */
export function withinBudget(
  texts: ReadonlyArray<string>,
  budget: number
): string[] {
  const kept: string[] = [];
  let left = budget;
  for (const text of texts) {
    if (left <= 0) {
      break;
    }
    const part = text.length > left ? text.slice(0, left) : text;
    left -= part.length;
    kept.push(part);
  }
  return kept;
}
