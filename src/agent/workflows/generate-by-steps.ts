/**
 * Generate notebook for small models: the product keeps the structure,
 * the model writes one piece at a time. A plan (a title and a few steps,
 * words only) becomes the title cell; each step becomes a markdown cell
 * the product writes, then one code cell the model writes (its reply begun
 * as code), run before the next step and rewritten in place when it fails;
 * a summary (words only) quoting what the cells printed ends it. The
 * verification after it (generate-notebook.ts) is the same for every model.
 *
 * Measured with Qwen2.5-Coder-1.5B through the one-long-turn prompt
 * (generate-notebook.ts `generatePrompt`): 12.4 min, 10 code cells and no
 * markdown (the title and the plan written into code cells: SyntaxError),
 * printed tables pasted back as code, the same error five times, invented
 * sample data although the request named the file. A 1.5B model does not
 * hold a whole notebook in mind; it writes a short cell for a named step.
 */
import { unsupportedNumbers } from '../context/claims';
import { unshownRankings } from '../context/rankings';
import {
  dataPreview,
  previewColumns,
  previewValues
} from '../context/data-preview';
import { formatRunResult } from '../context/observations';
import { kernelState, kernelVariables } from '../context/kernel-variables';
import { revenueHint } from '../context/revenue-formula';
import {
  frameDateColumns,
  previewDateColumns,
  timeHint
} from '../context/time-columns';
import type { IRunOutcome } from '../loop/run-agent';
import type { ICellSnapshot, INotebookPort } from '../ports';
import { cellNumber } from './cell-label';
import { asksForPlot, outputText, showsImage } from './evidence';
import { earlierCode, rewritePrompt } from './fix-rewrite';
import type { IFolderFile } from './folder-files';
import { stepsFromRequest } from './request-asks';
import { withResultShown } from './step-result';
import type { TurnRunner } from './turn-runner';

/** Steps of a plan, at most (each costs a model call or more). */
export const MAX_PLAN_STEPS = 6;

/** Rewrites of a step's failing cell before going on. */
export const STEP_REPAIRS = 2;

/** A notebook's plan: its title and steps. */
export interface IPlan {
  title: string;
  steps: string[];
}

/** What a stepwise generation needs. */
export interface IStepwiseOptions {
  notebook: INotebookPort;
  request: string;
  /** The data files of the notebook's folder (folder-files.ts). */
  files: ReadonlyArray<IFolderFile>;
  runTurn: TurnRunner;
  signal?: AbortSignal;
}

/** Build the notebook step by step; the last turn's outcome (or the first that ended early). */
export async function buildBySteps(
  options: IStepwiseOptions
): Promise<IRunOutcome> {
  const { notebook, request, runTurn } = options;
  const signal = options.signal ?? new AbortController().signal;
  // A request that lists its asks is planned from its own words; otherwise
  // the model plans it (in words, one step per ask). The files it names
  // are the ones its steps read.
  const named = await dataPreview(request, notebook);
  const asked = stepsFromRequest(request, {
    files: options.files.map(file => file.name),
    dateColumns: [...new Set(previewDateColumns(named).map(c => c.column))],
    fileColumns: previewColumns(named)
  });
  let plan: IPlan;
  let last: IRunOutcome | null = null;
  let shown = named; // the files' first lines the model saw
  if (asked) {
    plan = { title: titleOf(request), steps: asked };
  } else {
    const preview = options.files.length
      ? await dataPreview(
          options.files.map(file => file.name).join(' '),
          notebook
        )
      : null;
    shown = preview;
    last = await runTurn(planPrompt(request, options.files, preview), {
      display: request,
      wordsOnly: true,
      prefill: '1. '
    });
    if (ended(last)) {
      return last;
    }
    plan = parsePlan(last.answer ?? '', request);
  }
  await notebook.insertCell({ type: 'markdown', source: planCell(plan) });
  // Steps whose cell still fails after its rewrites (or that got none).
  const failedSteps: number[] = [];
  for (const [index, step] of plan.steps.entries()) {
    await notebook.insertCell({
      type: 'markdown',
      source: `## ${index + 1}. ${step}`
    });
    const before = new Set((await notebook.getCells()).map(cell => cell.id));
    const kernel = await kernelState(notebook, signal);
    const status = `Step ${index + 1} of ${plan.steps.length}: ${step}`;
    last = await runTurn(
      stepPrompt(index, plan.steps.length, step, kernel.note, {
        request,
        plan: plan.steps,
        dates: timeHint(step, frameDateColumns(kernel.rows)),
        revenue: revenueHint(step, kernel.rows),
        // No plan turn showed the model the files' first lines: the first step does.
        preview: asked && index === 0 ? named : null
      }),
      // The first turn of a plan read from the request shows the request.
      last
        ? { status, codeOnly: true, endAfterRun: true }
        : {
            display: request,
            codeOnly: true,
            endAfterRun: true
          }
    );
    if (ended(last)) {
      return last;
    }
    const cells = await notebook.getCells();
    const added = cells.filter(
      cell => cell.type === 'code' && !before.has(cell.id)
    );
    const cell = added[added.length - 1];
    let now: ICellSnapshot | undefined = cell;
    if (cell && failed(cell)) {
      last = await repairStep(options, cell, index, signal);
      if (ended(last)) {
        return last;
      }
      now = (await notebook.getCells()).find(c => c.id === cell.id);
    }
    if (!now || failed(now)) {
      failedSteps.push(index);
    } else {
      await showResult(notebook, now.id);
    }
  }
  return writeSummary(options, plan, previewValues(shown), failedSteps);
}

/** A step's cell that ran clean and showed nothing shows its result (step-result.ts). */
async function showResult(
  notebook: INotebookPort,
  cellId: string
): Promise<void> {
  const cell = (await notebook.getCells()).find(c => c.id === cellId);
  if (!cell || cell.outputs.length || cell.executionCount === null) {
    return;
  }
  const shown = withResultShown(cell.source);
  if (shown) {
    await notebook.editCell(cell.id, shown);
  }
}

/** Whether a turn ended the generation (the user stopped it, or an error). */
function ended(outcome: IRunOutcome): boolean {
  return outcome.reason === 'stopped' || outcome.reason === 'error';
}

/** Whether a cell's last run failed. */
function failed(cell: ICellSnapshot): boolean {
  return cell.outputs.some(output => output.type === 'error');
}

/** Rewrite a step's failing cell in place, a bounded number of times. */
async function repairStep(
  options: IStepwiseOptions,
  cell: ICellSnapshot,
  index: number,
  signal: AbortSignal
): Promise<IRunOutcome> {
  const { notebook, runTurn } = options;
  let current = cell;
  let outcome: IRunOutcome = { reason: 'completed', steps: 0 };
  let same = false;
  for (let attempt = 1; attempt <= STEP_REPAIRS; attempt++) {
    const cells = await notebook.getCells();
    outcome = await runTurn(
      rewritePrompt(
        current,
        cellNumber(cells, current.id) ?? current.id,
        `It failed:\n${formatRunResult({
          cellId: current.id,
          status: 'error',
          executionCount: current.executionCount,
          outputs: current.outputs
        })}`,
        {
          earlier: earlierCode(cells, current.id),
          variables: await kernelVariables(notebook, signal)
        },
        // After a reply that gave the cell back unchanged, it says so (and asks
        // for a change at the line the error points at), as the fix does.
        attempt === 1 ? false : same ? 'unchanged' : true
      ),
      {
        status: `Step ${index + 1}: its cell failed, rewriting it (attempt ${attempt} of ${STEP_REPAIRS})`,
        knownCells: [{ id: current.id, source: current.source }],
        codeTarget: current.id,
        codeOnly: true,
        endAfterRun: current.id,
        ...(same ? { sampled: true } : {})
      }
    );
    const now = (await notebook.getCells()).find(c => c.id === current.id);
    if (ended(outcome) || !now || !failed(now)) {
      return outcome;
    }
    // The same code again (greedy repeats itself): the next try is sampled.
    same = now.source === current.source;
    current = now;
  }
  return outcome;
}

/** Ask for the summary and write it as the last cell, with only backed numbers and values. */
async function writeSummary(
  options: IStepwiseOptions,
  plan: IPlan,
  fileValues: ReadonlySet<string>,
  failedSteps: ReadonlyArray<number>
): Promise<IRunOutcome> {
  const { notebook, request, runTurn } = options;
  const outcome = await runTurn(summaryPrompt(plan, failedSteps), {
    status: 'Writing the summary',
    wordsOnly: true,
    prefill: SUMMARY_HEADING
  });
  if (ended(outcome)) {
    return outcome;
  }
  const cells = await notebook.getCells();
  const sources = [
    ...cells.flatMap(cell => cell.outputs.map(outputText)),
    ...cells.filter(cell => cell.type === 'code').map(cell => cell.source),
    request
  ];
  await notebook.insertCell({
    type: 'markdown',
    source: summaryCell(
      outcome.answer ?? '',
      sources,
      cells.some(cell => showsImage(cell.outputs)),
      fileValues,
      failedSteps
    )
  });
  return outcome;
}

/**
 * The prompt of the plan: the request, the folder's data files, their first
 * lines, and dates kept as text. No example plan: Qwen2.5-Coder-1.5B copied
 * one (another file's steps, "Add a cost column (km × price_per_km)…") as
 * the plan of an experiment.csv notebook, measured on the Generate set.
 */
export function planPrompt(
  request: string,
  files: ReadonlyArray<IFolderFile>,
  preview: string | null
): string {
  const dates = timeHint(request, previewDateColumns(preview));
  return [
    'Plan a Jupyter notebook for this request:',
    '"""',
    request.trim(),
    '"""',
    ...filesLines(files),
    ...(preview ? [preview] : []),
    ...(dates ? [dates] : []),
    'Reply with 3 to 6 numbered steps, one short line each, in words, and nothing else: no title, no code. ' +
      'Each step is one short code cell that loads, computes, prints or plots one thing the request asks for; ' +
      'each thing the request asks for gets its own step' +
      (files.length ? '; step 1 loads the data from the files above' : '') +
      '.'
  ].join('\n');
}

/** The folder's data files in words, for a prompt (generate-notebook.ts too). */
export function filesLines(files: ReadonlyArray<IFolderFile>): string[] {
  return files.length
    ? [
        `Data files in the notebook's folder (open them by these names; do not make up data): ${files
          .map(file => file.name)
          .join(', ')}.`
      ]
    : [];
}

/** What a step's prompt says besides the step. */
export interface IStepContext {
  /** The user's request, so that a step in its words ("per group") is read in its sense. */
  request?: string;
  /** The plan's steps. */
  plan?: ReadonlyArray<string>;
  /** Dates kept as text, named (context/time-columns.ts). */
  dates?: string | null;
  /** Revenue asked for and no column holds it: the formula (context/revenue-formula.ts). */
  revenue?: string | null;
  /** The data files' first lines (context/data-preview.ts). */
  preview?: string | null;
}

/** The prompt of one step. */
export function stepPrompt(
  index: number,
  total: number,
  step: string,
  variables: string | null,
  context: IStepContext = {}
): string {
  const n = index + 1;
  return [
    ...(context.request
      ? [`The notebook is built for this request: "${context.request.trim()}"`]
      : []),
    // The plan, so that a step leaves the others to their cells (measured:
    // told the request alone, the 1.5B did every ask in the loading step).
    ...(context.plan?.length
      ? [
          'Its plan, one code cell per step:',
          ...context.plan.map((s, i) => `${i + 1}. ${s}`)
        ]
      : []),
    `Now step ${n} of ${total}: ${step}`,
    ...(context.preview ? [context.preview] : []),
    variables ??
      'Nothing is defined in the kernel yet: import and load what this step needs.',
    ...(context.dates ? [context.dates] : []),
    ...(context.revenue ? [context.revenue] : []),
    `Write the code cell for step ${n} only (the other steps get cells of their own), in one ` +
      '```python block: short, using the variables the cells above defined, printing (or plotting) its result.'
  ].join('\n');
}

/**
 * The prompt of the summary; `failedSteps` (indexes) are named as failed.
 * Told only that "its cells ran", the eval's 1.5B wrote "The output shows
 * the total margin for each product category" of a step whose cell failed
 * (no number, so the check of numbers could not drop it).
 */
export function summaryPrompt(
  plan: IPlan,
  failedSteps: ReadonlyArray<number> = []
): string {
  if (!failedSteps.length) {
    return [
      `The notebook "${plan.title}" is built: its cells ran, and their outputs are above.`,
      'Write its summary: 2 to 4 sentences of what the outputs show, quoting the values the cells printed. ' +
        'Only values that appear in the outputs above; no code.'
    ].join('\n');
  }
  const one = failedSteps.length === 1;
  const named = failedSteps.map(i => `step ${i + 1} (${plan.steps[i]})`);
  const numbers = failedSteps.map(i => String(i + 1));
  return [
    `The notebook "${plan.title}" is built and its cells ran; their outputs are above.`,
    `${capital(listed(named))} failed: ${one ? 'its cell ends' : 'their cells end'} in an error, ` +
      `so no output shows ${one ? 'its result' : 'their results'}.`,
    'Write its summary: 2 to 4 sentences of what the outputs show, quoting the values the cells printed. ' +
      'Only values that appear in the outputs above; no code. ' +
      `Say that step${one ? '' : 's'} ${listed(numbers)} failed, and describe no result for ${one ? 'it' : 'them'}.`
  ].join('\n');
}

/** "a", "a and b", "a, b and c". */
function listed(items: ReadonlyArray<string>): string {
  return items.length < 2
    ? (items[0] ?? '')
    : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

function capital(text: string): string {
  return text ? text[0].toUpperCase() + text.slice(1) : text;
}

const SUMMARY_HEADING = '## Summary\n';

/**
 * The plan in a reply begun with "1. ": its numbered (or bulleted) steps,
 * or its numbered headings (`# 2. Compute…`, `### Step 3: Plot…`: the
 * 1.5B wrote a heading and a code block per step), cut to MAX_PLAN_STEPS.
 * The title is the product's: the request's first clause. A reply with no
 * steps becomes one step, the request itself.
 */
export function parsePlan(text: string, request: string): IPlan {
  const steps: string[] = [];
  const lines = text.split('\n').map(line => line.trim());
  for (const [index, line] of lines.entries()) {
    const step =
      /^(?:\d+[.)]|[-*])\s+(.+)$/.exec(line)?.[1] ??
      /^#{1,6}\s*(?:step\s*)?\d+\s*[.):]\s*(.+)$/i.exec(line)?.[1];
    if (!step) {
      continue;
    }
    // A step written as code (`1. ```python`, measured with the 1.5B): the
    // step is what its code does, in its own words (a line of it).
    const said = step.startsWith('```')
      ? codeStep(lines.slice(index + 1))
      : step.includes('```')
        ? ''
        : clean(step);
    if (said) {
      steps.push(said);
    }
  }
  const kept = steps.filter(step => step.length > 2).slice(0, MAX_PLAN_STEPS);
  return {
    title: titleOf(request),
    steps: kept.length ? kept : [clean(request).slice(0, 200)]
  };
}

/**
 * A step from the code block that follows a numbered item: loading a file
 * is said so, otherwise the block's first line that is not an import or a
 * comment, as code.
 */
function codeStep(after: ReadonlyArray<string>): string {
  const end = after.findIndex(line => line.startsWith('```'));
  const code = (end < 0 ? after : after.slice(0, end)).filter(
    line => line && !/^(?:import|from)\s|^#/.test(line)
  );
  const file =
    /read_(?:csv|excel|json|parquet|table)\(\s*['"]([^'"]+)['"]/.exec(
      code.join('\n')
    )?.[1];
  if (file) {
    return `Load ${file}`;
  }
  const first = code[0] ?? '';
  return first
    ? `\`${first.length > 90 ? `${first.slice(0, 89)}…` : first}\``
    : '';
}

/** A notebook's title from its request: the first clause, cut short. */
export function titleOf(request: string): string {
  const first = clean(request.trim().split(/[\n:;!?]|\.(?:\s|$)/)[0] ?? '');
  const title = first.length > 80 ? `${first.slice(0, 79).trimEnd()}…` : first;
  return title ? title[0].toUpperCase() + title.slice(1) : 'Analysis';
}

/** A line of the model's plan without markdown emphasis or a trailing colon. */
function clean(line: string): string {
  return line
    .replace(/[*_`]+/g, '')
    .replace(/[:.]\s*$/, '')
    .trim();
}

/** The title cell: the title and the plan. */
export function planCell(plan: IPlan): string {
  return [
    `# ${plan.title}`,
    '',
    ...plan.steps.map((step, i) => `${i + 1}. ${step}`)
  ].join('\n');
}

/**
 * The summary cell from the model's reply: its sentences and list items
 * that state only numbers `sources` show (a small model's summary invents
 * some) and no ranking their tables contradict (context/rankings.ts),
 * that name no value of the files' first lines (`fileValues`) no
 * source shows (the walk's 1.5B named "the top products … Gadget,
 * Thingamajig, Sprocket", which no cell computed), and, when no cell shows
 * an image (`images`), that claim no plot, under the summary heading. Its
 * paragraphs and lists keep their shape; a lead-in ("… as follows:") whose
 * items were all dropped goes with them (the eval's 1.5B listed a margin per
 * category that no cell computed).
 */
export function summaryCell(
  answer: string,
  sources: ReadonlyArray<string>,
  images = false,
  fileValues: ReadonlySet<string> = new Set(),
  failedSteps: ReadonlyArray<number> = []
): string {
  const body = answer
    // (A begun reply may repeat its heading: llama-server echoes the prefill.)
    .replace(/^(?:\s*#+\s*summary\b[ \t:]*\n?)+/i, '')
    .replace(/```[\s\S]*?(```|$)/g, '')
    .trim();
  const backed = (text: string) =>
    !unsupportedNumbers(text, [...sources]).length &&
    // A ranking the printed tables contradict (the walk's "East has the
    // highest revenue" under a table where North's was).
    !unshownRankings(text, sources).length &&
    !namesUnshown(text, fileValues, sources) &&
    // A plot it says is there, where no cell shows one.
    (images || !asksForPlot(text));
  const units = summaryUnits(body);
  const kept = units.filter((unit, index) => {
    if (unit.kind === 'break') {
      return true;
    }
    if (!backed(unit.text)) {
      return false;
    }
    if (unit.kind === 'sentence' && unit.text.endsWith(':')) {
      // A lead-in stays only with one of its items.
      const after = units.slice(index + 1);
      const items = after.slice(after.findIndex(next => next.kind !== 'break'));
      const end = items.findIndex(next => next.kind !== 'item');
      return items
        .slice(0, end < 0 ? items.length : end)
        .some(item => item.kind === 'item' && backed(item.text));
    }
    return true;
  });
  const text = renderUnits(kept);
  return `${SUMMARY_HEADING}${text || fallbackSummary(failedSteps)}`;
}

/** The summary when no sentence of the model's stays. */
function fallbackSummary(failedSteps: ReadonlyArray<number>): string {
  if (!failedSteps.length) {
    return 'The outputs above show the results of each step.';
  }
  const one = failedSteps.length === 1;
  return (
    `The outputs above show the result of each step but ${one ? 'step' : 'steps'} ` +
    `${listed(failedSteps.map(i => String(i + 1)))}, whose ${one ? 'cell fails' : 'cells fail'}.`
  );
}

/** A piece of a summary: a sentence of prose, a list item, or a paragraph break. */
type SummaryUnit =
  | { kind: 'sentence' | 'item'; text: string; marker?: string }
  | { kind: 'break' };

/** The summary's sentences, list items (their markers apart) and paragraph breaks. */
function summaryUnits(body: string): SummaryUnit[] {
  const units: SummaryUnit[] = [];
  for (const line of body.split('\n')) {
    const item = /^\s*([-*+]|\d+[.)])\s+(.*\S)\s*$/.exec(line);
    if (item) {
      units.push({ kind: 'item', marker: item[1], text: item[2] });
    } else if (!line.trim()) {
      units.push({ kind: 'break' });
    } else {
      // A sentence ends at . ! or ? before a space (not inside 1234.5).
      for (const sentence of line.trim().split(/(?<=[.!?])\s+/)) {
        units.push({ kind: 'sentence', text: sentence });
      }
    }
  }
  return units;
}

/**
 * Markdown from the units kept: a paragraph's sentences on one line, each
 * item on its own, a blank line between a paragraph and a list or the next
 * paragraph.
 */
function renderUnits(units: ReadonlyArray<SummaryUnit>): string {
  const blocks: string[][] = [];
  let last: 'sentence' | 'item' | 'break' = 'break';
  for (const unit of units) {
    if (unit.kind === 'break') {
      last = 'break';
      continue;
    }
    const line =
      unit.kind === 'item' ? `${unit.marker} ${unit.text}` : unit.text;
    if (last !== unit.kind) {
      blocks.push([line]);
    } else if (unit.kind === 'sentence') {
      const block = blocks[blocks.length - 1];
      block[block.length - 1] += ` ${line}`;
    } else {
      blocks[blocks.length - 1].push(line);
    }
    last = unit.kind;
  }
  return blocks.map(block => block.join('\n')).join('\n\n');
}

/** Whether `sentence` names a value of the files' first lines that no source shows. */
function namesUnshown(
  sentence: string,
  fileValues: ReadonlySet<string>,
  sources: ReadonlyArray<string>
): boolean {
  const named = [...sentence.matchAll(/[A-Za-z][A-Za-z_-]{2,}/g)]
    .map(word => word[0])
    .filter(word => fileValues.has(word));
  if (!named.length) {
    return false;
  }
  const shown = sources.join('\n').toLowerCase();
  return named.some(
    word =>
      !new RegExp(`(?<![A-Za-z_])${word.toLowerCase()}(?![A-Za-z_])`).test(
        shown
      )
  );
}
