/**
 * Formats notebook outputs as observations for the model, within a budget.
 *
 * Models need to read results, not drown in them: long text keeps its head
 * and tail with the number of elided characters, ANSI codes and progress-bar
 * rewrites go, tracebacks keep the user's frames, DataFrames become shape +
 * head, and images are described rather than pasted as base64. The pieces
 * live in text.ts, errors.ts, rich.ts and images.ts; this module combines
 * them and is what the tools import.
 */
import type { CellOutput, ICellSnapshot, IRunResult } from '../ports';
import type { OffersTool } from '../tools/run-state';
import { formatError } from './errors';
import { formatRich } from './rich';
import { cleanStreamText, truncateMiddle, withoutKernelPid } from './text';

export { stripAnsi, truncateMiddle, applyCarriageReturns } from './text';
export { formatError } from './errors';
export {
  collectImages,
  type ICollectedImage,
  type IImageResizer
} from './images';

/** Default character budget for one cell's outputs. */
export const OUTPUT_BUDGET = 4000;

// Below this share an output says too little to be worth showing.
const MIN_SHARE = 120;
const STDERR_LABEL = '[stderr]\n';
const STDOUT_LABEL = '[stdout]\n';

/** One output as text, within `budget` characters ('' when it shows nothing). */
export function formatOutput(
  output: CellOutput,
  budget = OUTPUT_BUDGET
): string {
  switch (output.type) {
    case 'stream':
      return formatStream(output.text, output.name === 'stderr', budget);
    case 'error':
      return withoutKernelPid(formatError(output, budget));
    case 'display_data':
    case 'execute_result':
      return formatRich(output, budget);
  }
}

function formatStream(text: string, label: boolean | string, budget: number) {
  const clean = withoutKernelPid(cleanStreamText(text)).replace(/\n$/, '');
  if (!clean.trim()) {
    return '';
  }
  const prefix = typeof label === 'string' ? label : label ? STDERR_LABEL : '';
  return prefix + truncateMiddle(clean, budget - prefix.length);
}

/**
 * One output of a list: stdout right after stderr is labelled too, or it
 * would read as part of the stderr text.
 */
function formatItem(
  output: CellOutput,
  previous: CellOutput | undefined,
  budget: number
): string {
  if (
    output.type === 'stream' &&
    output.name === 'stdout' &&
    previous?.type === 'stream'
  ) {
    return formatStream(output.text, STDOUT_LABEL, budget);
  }
  return formatOutput(output, budget);
}

/**
 * Join consecutive writes to the same stream, as the notebook shows them, so
 * a progress bar split over many messages collapses to its final state.
 */
function coalesceStreams(outputs: CellOutput[]): CellOutput[] {
  const merged: CellOutput[] = [];
  for (const output of outputs) {
    const last = merged[merged.length - 1];
    if (
      output.type === 'stream' &&
      last?.type === 'stream' &&
      last.name === output.name
    ) {
      merged[merged.length - 1] = { ...last, text: last.text + output.text };
    } else {
      merged.push(output);
    }
  }
  return merged;
}

/**
 * Share `budget` between items of the given natural sizes: small items get
 * all they need, the large ones split what is left evenly.
 */
function allocate(sizes: number[], budget: number): number[] {
  const shares = sizes.map(() => 0);
  const order = sizes.map((_, i) => i).sort((a, b) => sizes[a] - sizes[b]);
  let left = budget;
  order.forEach((index, rank) => {
    const fair = Math.floor(left / (order.length - rank));
    shares[index] = Math.min(sizes[index], fair);
    left -= shares[index];
  });
  return shares;
}

/**
 * All outputs of a cell as text within `budget` characters. Each output gets
 * a fair share, so one huge stream cannot push an error out of view; with
 * too many outputs, the first and last are kept and the rest counted.
 */
export function formatOutputs(
  outputs: CellOutput[],
  budget = OUTPUT_BUDGET
): string {
  if (!outputs.length) {
    return '(no output)';
  }
  const merged = coalesceStreams(outputs);
  // Streams that print nothing visible (a lone newline) take no room.
  const visible = merged.filter(
    (output, i) => formatItem(output, merged[i - 1], MIN_SHARE) !== ''
  );
  let items = visible.map((output, i) => ({
    output,
    previous: visible[i - 1]
  }));
  if (!items.length) {
    return '(no output)';
  }
  let omitted = '';
  const fit = Math.max(2, Math.floor(budget / MIN_SHARE));
  if (items.length > fit) {
    const head = Math.ceil((fit - 1) / 2);
    const tail = fit - 1 - head;
    omitted = `[${items.length - head - tail} more outputs omitted]`;
    items = [...items.slice(0, head), ...items.slice(items.length - tail)];
  }
  const room = budget - (items.length - 1) - (omitted ? omitted.length + 1 : 0);
  const format = (item: (typeof items)[number], share: number) =>
    formatItem(item.output, item.previous, share);
  const natural = items.map(item => format(item, room));
  const shares = allocate(
    natural.map(text => text.length),
    room
  );
  const parts = items.map((item, i) =>
    natural[i].length <= shares[i] ? natural[i] : format(item, shares[i])
  );
  if (omitted) {
    parts.splice(Math.ceil(parts.length / 2), 0, omitted);
  }
  // Formatters may round up by a few characters; the budget is a promise.
  return truncateMiddle(parts.join('\n'), budget);
}

/**
 * The shortest finished run whose time the observation states. Why: with
 * greedy decoding a small model's next reply is a function of every byte
 * of its prompt, and a short cell's time changes from run to run with the
 * machine's load ("took 0.9 s", then "took 0.8 s"). Two eval runs of the
 * same commit on one machine (2026-12-07, Qwen2.5-Coder-1.5B) had replies
 * that differed after prompts that differed only in such times in 8 of 10
 * Generate requests and 5 of 35 questions, and the Generate score moved
 * 3/10 → 5/10 on that alone. Under 10 s a time tells the model nothing it
 * acts on; a run still going, stopped or timed out keeps its time.
 */
const FINISHED_TIME_FROM_MS = 10000;

function seconds(ms: number): string {
  const s = ms / 1000;
  if (s < 10) {
    return `${s.toFixed(1)} s`;
  }
  if (s < 120) {
    return `${Math.round(s)} s`;
  }
  return `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
}

/** Whether a run observation (statusLine's first line) says the code raised an error. */
export function isErrorObservation(text: string): boolean {
  return /^(cell_id: \S+|The scratch code) raised an error/.test(text);
}

/** Whether a run observation (statusLine's first line) says the code finished without an error. */
export function isCleanRunObservation(text: string): boolean {
  return /^(cell_id: \S+|The scratch code) finished OK/.test(text);
}

/**
 * The first line of a run observation: what happened, in plain words,
 * naming only the tools the run `offers` (a small model's run has few).
 */
function statusLine(result: IRunResult, offers: OffersTool): string {
  const who =
    result.cellId === null ? 'The scratch code' : `cell_id: ${result.cellId}`;
  const count =
    result.executionCount === null
      ? ''
      : `execution count ${result.executionCount}`;
  const after = result.elapsedMs === undefined ? '' : seconds(result.elapsedMs);
  const finishedAfter =
    (result.elapsedMs ?? 0) >= FINISHED_TIME_FROM_MS ? after : '';
  const detail = (...parts: string[]) => {
    const text = parts.filter(p => p).join(', ');
    return text ? ` (${text})` : '';
  };
  switch (result.status) {
    case 'ok':
      return `${who} finished OK${detail(count, finishedAfter && `took ${finishedAfter}`)}.`;
    case 'error':
      return `${who} raised an error${detail(count, finishedAfter && `after ${finishedAfter}`)}.`;
    case 'running':
      return offers('wait') && offers('interrupt_kernel')
        ? `${who} is still running${after && ` after ${after}`}; the output ` +
            'below is partial. Call `wait` to keep waiting for it, or ' +
            '`interrupt_kernel` to stop it.'
        : `${who} is still running${after && ` after ${after}`} in the kernel; ` +
            'the output below is partial.';
    case 'aborted':
      if (result.kernelRestarted) {
        return (
          `${who} was stopped by the user${after && ` after ${after}`}; the code ignored the ` +
          `interrupt, so the kernel was restarted. ${LOST_STATE}`
        );
      }
      return result.notStopped
        ? `${who} was interrupted by the user${after && ` after ${after}`}, but ${stillRunning(offers)}`
        : `${who} was interrupted by the user${after && ` after ${after}`}, ` +
            'before it finished; the output below is partial.';
    case 'timeout':
      if (result.notStopped) {
        return `${who} hit the hard time limit${after && ` after ${after}`}; the kernel was interrupted, but ${stillRunning(offers)}`;
      }
      return result.cellId === null
        ? `${who} hit its time limit${after && ` after ${after}`} and the kernel was ` +
            'interrupted; the output below is partial. Scratch code is for quick looks: ' +
            (offers('insert_cell') && offers('run_cell')
              ? 'put longer work in a cell (insert_cell, then run_cell), where it can keep '
              : 'put longer work in a cell, where it can keep ') +
            'running while you wait for it.'
        : `${who} hit the hard time limit${after && ` after ${after}`} and the ` +
            'kernel was interrupted; the output below is partial. Make the code ' +
            'faster or work on a sample.';
    case 'kernel-died':
      return kernelGoneLine(
        result,
        who === 'The scratch code' ? 'the scratch code' : who,
        after,
        offers
      );
  }
}

/** The end of the first line when interrupted code went on running. */
function stillRunning(offers: OffersTool): string {
  return (
    'the code did not stop when interrupted (it ignores interrupts or is stuck in native ' +
    'code): the kernel is still running it and will run nothing else. ' +
    (offers('restart_kernel')
      ? 'Call restart_kernel (all variables are lost), then re-run the cells that define what you need; '
      : 'Tell the user: only a restart of the kernel (Kernel > Restart Kernel) stops it. ') +
    'the output below is partial.'
  );
}

const LOST_STATE =
  'All variables, imports and loaded data are lost: re-run the cells that define what you need.';

/** The first line when the kernel went away under a run. */
function kernelGoneLine(
  result: IRunResult,
  what: string,
  after: string,
  offers: OffersTool
): string {
  const when = `while ${what} was running${after && ` (after ${after})`}`;
  switch (result.kernelEvent) {
    case 'restarted':
      return `The kernel was restarted (by the user or another client) ${when}. ${LOST_STATE}`;
    case 'lost':
      return (
        `The kernel is gone ${when}: the Jupyter server restarted or stopped, or the ` +
        'kernel was shut down. ' +
        (offers('restart_kernel')
          ? 'Call restart_kernel to start a new one; '
          : 'Tell the user to start a new one (Kernel > Restart Kernel); ') +
        LOST_STATE.charAt(0).toLowerCase() +
        LOST_STATE.slice(1)
      );
    case undefined:
      return (
        `The kernel died ${when}. All variables, imports ` +
        'and loaded data are lost: the kernel restarted or must be restarted ' +
        (offers('restart_kernel') ? '(`restart_kernel`), ' : '') +
        'then re-run the cells that define what you ' +
        'need. It may have run out of memory: work on less data at once.'
      );
  }
}

/** The observation after running a cell (or scratch code). */
export function formatRunResult(
  result: IRunResult,
  budget = OUTPUT_BUDGET,
  offers: OffersTool = () => true
): string {
  const lines = [statusLine(result, offers)];
  if (result.stdinRefused) {
    lines.push(
      'The code called input(), which is not available to the agent: put ' +
        'the values in the code instead.'
    );
  }
  const finished = result.status === 'ok' || result.status === 'error';
  lines.push(
    `${finished ? 'Output' : 'Output so far'}:`,
    formatOutputs(result.outputs, budget)
  );
  return lines.join('\n');
}

/** The line that starts a cell in `read_notebook`: its id, type and run. */
export function cellHeader(cell: ICellSnapshot): string {
  const run =
    cell.type === 'code'
      ? cell.executionCount === null
        ? ' (not run)'
        : ` [${cell.executionCount}]`
      : '';
  return `--- cell_id: ${cell.id} · ${cell.type}${run}`;
}

/** A cell as read by `read_notebook`, with a short output summary. */
export function formatCell(cell: ICellSnapshot, outputBudget = 600): string {
  const lines = [cellHeader(cell), truncateMiddle(cell.source, 2000)];
  if (cell.type === 'code' && cell.outputs.length) {
    lines.push(`>>> output:\n${formatOutputs(cell.outputs, outputBudget)}`);
  }
  return lines.join('\n');
}
