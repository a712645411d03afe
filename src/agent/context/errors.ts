/**
 * Error outputs for the model: the exception first, then the traceback cut
 * down to the frames of the user's cells and the frame that raised.
 *
 * A pandas or sklearn traceback is mostly library internals the model can do
 * nothing about; what it needs is what was raised, which line of the
 * notebook led there, and where it was finally raised.
 */
import { clipLine, stripAnsi, truncateMiddle } from './text';

/** The parts of an error output the formatter reads. */
export interface IErrorLike {
  ename: string;
  evalue: string;
  traceback: string[];
}

/** Default character budget for one formatted error. */
export const ERROR_BUDGET = 3000;

// IPython's verbose ("File ~/x.py:12, in f") and plain ("  Cell In[4], line 3")
// frames, and CPython's ('  File "x.py", line 3, in f').
const FRAME_START = /^\s*(?:Cell In\s*\[|Input In\s*\[|File\s)/;
const HIDDEN_FRAMES = /^\s*\[\.\.\. skipping hidden (\d+) frames?\]/;
// Code the user wrote in the notebook: cells, old-style inputs, and the temp
// files ipykernel compiles cells to.
const USER_FRAME =
  /^\s*(?:Cell In\s*\[|Input In\s*\[)|<ipython-input-|[\\/]ipykernel_\d+[\\/]/;
const NOISE = /^-{10,}$|Traceback \(most recent call last\):?$/;
// The line IPython marks with an arrow ("----> 3 f()" or "-> 355 raise").
const ARROW_LINE = /^\s*-*>\s*\d+/;
const MAX_LINE = 200;

interface IBlock {
  kind: 'frame' | 'hidden' | 'text';
  lines: string[];
  user: boolean;
  /** Frames a hidden-frames marker stands for. */
  count: number;
}

function toBlocks(traceback: string[]): IBlock[] {
  const blocks: IBlock[] = [];
  for (const entry of traceback) {
    let current: IBlock | null = null;
    for (const line of stripAnsi(entry).split('\n')) {
      const hidden = HIDDEN_FRAMES.exec(line);
      if (hidden) {
        current = null;
        blocks.push({
          kind: 'hidden',
          lines: [],
          user: false,
          count: Number(hidden[1])
        });
      } else if (FRAME_START.test(line)) {
        current = { kind: 'frame', lines: [line], user: false, count: 1 };
        current.user = USER_FRAME.test(line);
        blocks.push(current);
      } else if (current) {
        current.lines.push(line);
      } else if (!NOISE.test(line.trim())) {
        current = { kind: 'text', lines: [line], user: false, count: 0 };
        blocks.push(current);
      }
    }
  }
  for (const block of blocks) {
    while (block.lines.length && !block.lines[block.lines.length - 1].trim()) {
      block.lines.pop();
    }
    while (block.lines.length && !block.lines[0].trim()) {
      block.lines.shift();
    }
  }
  return blocks.filter(b => b.kind === 'hidden' || b.lines.length > 0);
}

/** Drop the final "Ename: evalue" line: it is already printed first. */
function dropFinalMessage(blocks: IBlock[], ename: string): void {
  const last = blocks[blocks.length - 1];
  const line = last?.lines[last.lines.length - 1]?.trim() ?? '';
  if (line === ename || line.startsWith(`${ename}:`)) {
    last.lines.pop();
    if (!last.lines.length) {
      blocks.pop();
    }
  }
}

/** Library frames keep their location and the line that raised. */
function compactFrame(block: IBlock): string[] {
  if (block.user) {
    return block.lines.map(line => clipLine(line, MAX_LINE));
  }
  const arrows = block.lines.slice(1).filter(line => ARROW_LINE.test(line));
  // CPython frames have no arrow: their one code line (and carets) follow.
  const body = arrows.length ? arrows : block.lines.slice(1, 4);
  return [block.lines[0], ...body].map(line => clipLine(line, MAX_LINE));
}

/**
 * Keep the user's frames and the last frame before each exception message
 * (where it was raised); count the rest.
 */
function trimFrames(blocks: IBlock[]): { lines: string[]; omitted: number } {
  const lines: string[] = [];
  let omitted = 0;
  let pending = 0;
  const flush = () => {
    if (pending) {
      lines.push(`[${pending} library frame${pending > 1 ? 's' : ''} omitted]`);
      omitted += pending;
      pending = 0;
    }
  };
  blocks.forEach((block, i) => {
    const next = blocks[i + 1];
    const raisedHere =
      block.kind === 'frame' && (!next || next.kind === 'text');
    if (block.kind === 'text') {
      flush();
      lines.push(...block.lines);
    } else if (block.kind === 'frame' && (block.user || raisedHere)) {
      flush();
      lines.push(...compactFrame(block));
    } else {
      pending += block.count;
    }
  });
  flush();
  return { lines, omitted };
}

/**
 * An error output as text: "Ename: evalue" first, then the traceback trimmed
 * to the user's frames and the raising frame, within `budget` characters.
 */
export function formatError(error: IErrorLike, budget = ERROR_BUDGET): string {
  const ename = stripAnsi(error.ename);
  const evalue = stripAnsi(error.evalue);
  const message = truncateMiddle(
    evalue ? `${ename}: ${evalue}` : ename,
    Math.ceil(budget / 2)
  );
  const blocks = toBlocks(error.traceback ?? []);
  dropFinalMessage(blocks, ename);
  if (!blocks.some(b => b.kind === 'frame')) {
    const rest = blocks.flatMap(b => b.lines).join('\n');
    return truncateMiddle(rest ? `${message}\n${rest}` : message, budget);
  }
  const { lines, omitted } = trimFrames(blocks);
  const header = omitted
    ? `Traceback (most recent call last; ${omitted} library frame${omitted > 1 ? 's' : ''} omitted):`
    : 'Traceback (most recent call last):';
  return truncateMiddle([message, header, ...lines].join('\n'), budget);
}
