/**
 * "Generate notebook": build a whole notebook from a request, section by
 * section, running every cell; then verify it the way a reader would
 * (restart, run all) and send any failure back to the agent, a bounded
 * number of times.
 */
import { formatBytes } from '../context/text';
import type { INotebookPort, IRunOptions } from '../ports';
import type { IRunOutcome } from '../loop/run-agent';
import { kernelVariables } from '../context/kernel-variables';
import { cellNumber } from './cell-label';
import { assessEvidence, isSummaryCell } from './evidence';
import { earlierCode, rewritePrompt } from './fix-rewrite';
import { buildBySteps, filesLines } from './generate-by-steps';
import { folderDataFiles, namedFiles, type IFolderFile } from './folder-files';
import type { OffersTool } from '../tools/run-state';
import type { TurnRunner } from './turn-runner';
import { verifyNotebook, type IVerification } from './verify-notebook';

/** Repairs after a failed verification, by default. */
export const DEFAULT_VERIFY_REPAIRS = 2;

/** A file the user attached, already in the notebook's directory. */
export interface IAttachedFile {
  /** Path relative to the notebook's directory. */
  name: string;
  /** Bytes, when known. */
  size?: number;
}

/** What a generation needs. */
export interface IGenerateOptions {
  notebook: INotebookPort;
  /** The user's request. */
  request: string;
  attachments?: ReadonlyArray<IAttachedFile>;
  runTurn: TurnRunner;
  /** How many times a failed verification goes back to the agent. */
  maxRepairs?: number;
  /** For the verification runs (hard timeout, Stop). */
  runOptions?: IRunOptions;
  /** Told before each verification starts and after it ends. */
  onVerification?: (event: IVerificationEvent) => void;
  /**
   * Small models (the text protocol): the product keeps the structure and
   * the model writes one cell at a time (generate-by-steps.ts); repairs
   * rewrite the failing cell.
   */
  stepwise?: boolean;
  /** Whether the turns offer a tool: the prompt names only those (default: all). */
  offers?: OffersTool;
}

/**
 * Progress of the verification, for the transcript; `notVerified` says
 * why the notebook is not verified, when that is the verdict.
 */
export type IVerificationEvent =
  | { type: 'start' }
  | {
      type: 'done';
      verification: IVerification;
      willRepair: boolean;
      notVerified?: string;
    };

/** How a generation ended. */
export interface IGenerateResult {
  /**
   * `verified`: it ran from the top after a restart and holds the work it
   * claims (evidence.ts); `unverified`: built, but not verified (`reason`
   * says why: a cell still fails after the repairs, or the work is not in
   * the notebook); `stopped` / `failed`: the run ended early (stopped by
   * the user, or an error the session shows).
   */
  status: 'verified' | 'unverified' | 'stopped' | 'failed';
  /** With `unverified`: why, in the user's terms. */
  reason?: string;
  verification?: IVerification;
  outcome: IRunOutcome;
}

/**
 * Build the notebook, then verify it (and repair it) until it runs top to
 * bottom. A notebook left unverified says so itself, under its summary: the
 * summary was written before the verification, and the notebook outlives
 * the sidebar's status line.
 */
export async function generateNotebook(
  options: IGenerateOptions
): Promise<IGenerateResult> {
  const result = await buildAndVerify(options);
  if (result.status === 'unverified' && result.reason) {
    const failing = result.verification?.ok === false;
    await noteNotVerified(
      options.notebook,
      notVerifiedNote(result.reason, failing)
    );
  }
  return result;
}

/**
 * The note a notebook left unverified ends with; `failing`: a cell fails
 * from the top, so its error (not its result) is in its output.
 */
export function notVerifiedNote(reason: string, failing: boolean): string {
  return (
    `**Not verified:** ${reason}` +
    (failing
      ? '; its error is in its output. What it computes is not shown above.'
      : '.')
  );
}

/** Add the note under the last cell when that is the summary, else as a cell of its own. */
async function noteNotVerified(
  notebook: INotebookPort,
  note: string
): Promise<void> {
  const last = (await notebook.getCells()).at(-1);
  if (last && isSummaryCell(last)) {
    await notebook.editCell(last.id, `${last.source.trimEnd()}\n\n${note}`);
  } else {
    await notebook.insertCell({ type: 'markdown', source: note });
  }
}

async function buildAndVerify(
  options: IGenerateOptions
): Promise<IGenerateResult> {
  const { notebook, runTurn } = options;
  const maxRepairs = Math.max(0, options.maxRepairs ?? DEFAULT_VERIFY_REPAIRS);
  // A new notebook may open with one empty cell (JupyterLab adds it): the
  // agent appends after it, so remove it once the agent has added cells.
  const initial = await notebook.getCells();
  const placeholder =
    initial.length === 1 && !initial[0].source.trim() ? initial[0].id : null;
  const files = await folderDataFiles(notebook);
  let outcome = options.stepwise
    ? await buildBySteps({
        notebook,
        request: options.request,
        files,
        runTurn,
        signal: options.runOptions?.signal
      })
    : await runTurn(
        generatePrompt(
          notebook.path,
          options.request,
          options.attachments ?? [],
          files,
          options.offers
        ),
        { display: options.request }
      );
  if (placeholder) {
    await dropPlaceholder(notebook, placeholder);
  }
  let verification: IVerification | undefined;
  for (let repairs = 0; ; repairs++) {
    if (outcome.reason === 'stopped' || outcome.reason === 'error') {
      return {
        status: outcome.reason === 'stopped' ? 'stopped' : 'failed',
        verification,
        outcome
      };
    }
    options.onVerification?.({ type: 'start' });
    verification = await verifyNotebook(notebook, options.runOptions);
    const aborted = options.runOptions?.signal?.aborted ?? false;
    if (verification.ok && !aborted) {
      // It runs; now, does it hold the work it claims?
      const evidence = assessEvidence(
        await notebook.getCells(),
        options.request
      );
      options.onVerification?.({
        type: 'done',
        verification,
        willRepair: false,
        ...(evidence.ok ? {} : { notVerified: evidence.reason })
      });
      return evidence.ok
        ? { status: 'verified', verification, outcome }
        : {
            status: 'unverified',
            reason: evidence.reason,
            verification,
            outcome
          };
    }
    const willRepair = !aborted && repairs < maxRepairs;
    options.onVerification?.({
      type: 'done',
      verification,
      willRepair,
      ...(willRepair || aborted
        ? {}
        : { notVerified: failureReason(verification) })
    });
    if (!willRepair) {
      return aborted
        ? { status: 'stopped', verification, outcome }
        : {
            status: 'unverified',
            reason: failureReason(verification),
            verification,
            outcome
          };
    }
    const failed = verification.failure;
    const status = `Repairing the notebook (attempt ${repairs + 1} of ${maxRepairs})`;
    const beforeRepair = sourcesOf(await notebook.getCells());
    outcome =
      options.stepwise && failed
        ? await rewriteAfterRestart(options, failed, status, beforeRepair)
        : await runTurn(repairPrompt(verification), {
            // The workflow's own step, shown as a status line (not as the
            // user's). (The verification's notice above it says what failed.)
            status,
            knownCells: failed
              ? [{ id: failed.cellId, source: failed.source }]
              : []
          });
    const ended = outcome.reason === 'stopped' || outcome.reason === 'error';
    if (!ended && sourcesOf(await notebook.getCells()) === beforeRepair) {
      // A repair that changed no cell would fail the same way from the top:
      // no second verification of the same notebook.
      const reason = `${failureReason(verification)}, and the repair changed no cell`;
      options.onVerification?.({
        type: 'done',
        verification,
        willRepair: false,
        notVerified: reason
      });
      return { status: 'unverified', reason, verification, outcome };
    }
  }
}

/** The notebook's cells as one string (types and sources). */
function sourcesOf(
  cells: ReadonlyArray<{ type: string; source: string }>
): string {
  return JSON.stringify(cells.map(cell => [cell.type, cell.source]));
}

/** Why a notebook that fails from the top is not verified. */
export function failureReason(verification: IVerification): string {
  const at = (verification.failure?.index ?? verification.ran - 1) + 1;
  return `code cell ${at} of ${verification.total} fails after a kernel restart`;
}

/** Delete the empty cell a new notebook opened with, if it is still empty and not alone. */
async function dropPlaceholder(
  notebook: INotebookPort,
  id: string
): Promise<void> {
  const cells = await notebook.getCells();
  const cell = cells.find(c => c.id === id);
  if (cell && cells.length > 1 && !cell.source.trim()) {
    await notebook.deleteCell(id);
  }
}

/**
 * A small model's repair of the cell that failed after the restart: the cell
 * rewritten and run. A reply that gives the cell back unchanged (greedy
 * decoding repeats itself: seen in the eval's Generate with the 1.5B) gets
 * one more turn, sampled, told that it changed nothing, as the fix does.
 */
async function rewriteAfterRestart(
  options: IGenerateOptions,
  failed: NonNullable<IVerification['failure']>,
  status: string,
  beforeRepair: string
): Promise<IRunOutcome> {
  const { notebook, runTurn } = options;
  const signal = options.runOptions?.signal;
  const turn = {
    status,
    knownCells: [{ id: failed.cellId, source: failed.source }],
    codeTarget: failed.cellId,
    codeOnly: true,
    endAfterRun: failed.cellId
  };
  const outcome = await runTurn(
    await rewriteFailure(notebook, failed, signal, false),
    turn
  );
  const ended = outcome.reason === 'stopped' || outcome.reason === 'error';
  if (ended || sourcesOf(await notebook.getCells()) !== beforeRepair) {
    return outcome;
  }
  return runTurn(await rewriteFailure(notebook, failed, signal, 'unchanged'), {
    ...turn,
    status: `${status}: the reply changed nothing, asking again`,
    sampled: true
  });
}

/**
 * The verification's failing cell as a rewrite prompt (small models): the
 * cell, its error after the restart, the code above it, the kernel's state.
 */
async function rewriteFailure(
  notebook: INotebookPort,
  failed: NonNullable<IVerification['failure']>,
  signal = new AbortController().signal,
  again: boolean | 'unchanged' = false
): Promise<string> {
  const cells = await notebook.getCells();
  const cell = cells.find(c => c.id === failed.cellId);
  const snapshot = cell ?? {
    id: failed.cellId,
    type: 'code' as const,
    source: failed.source,
    outputs: [],
    executionCount: null
  };
  return rewritePrompt(
    snapshot,
    cellNumber(cells, failed.cellId) ?? failed.cellId,
    `After a kernel restart, running the notebook from the top, it failed:\n${failed.observation}`,
    {
      earlier: earlierCode(cells, failed.cellId),
      variables: await kernelVariables(notebook, signal)
    },
    again
  );
}

/**
 * The prompt that starts a generation. `folder`: the data files of the
 * notebook's folder, which the notebook uses; made-up sample data only
 * when there are none and the request names none.
 */
export function generatePrompt(
  path: string,
  request: string,
  attachments: ReadonlyArray<IAttachedFile>,
  folder: ReadonlyArray<IFolderFile> = [],
  offers: OffersTool = () => true
): string {
  const present = new Set(folder.map(file => file.name));
  const missing = namedFiles(request).filter(
    name => !present.has(name) && !attachments.some(a => a.name === name)
  );
  const files = attachments.length
    ? [
        'Attached files, in the notebook’s directory (open them by these relative paths):',
        ...attachments.map(
          file =>
            `- ${file.name}${file.size !== undefined ? ` (${formatBytes(file.size)})` : ''}`
        ),
        ...filesLines(
          folder.filter(file => !attachments.some(a => a.name === file.name))
        )
      ]
    : folder.length
      ? filesLines(folder)
      : missing.length
        ? []
        : [
            'The notebook’s folder holds no data files. If the task needs data, create a small realistic ' +
              'sample dataset in the notebook, and say in a markdown cell that it is sample data.'
          ];
  if (missing.length) {
    files.push(
      `The request names ${missing.join(', ')}, which the notebook’s folder does not hold: ` +
        (offers('list_files')
          ? 'look for it with list_files, and if it is not there, say so in a markdown cell. '
          : 'say so in a markdown cell. ') +
        'Never make up data in its place.'
    );
  }
  // A small model's run has no plan tool: its steps are the prompt's own.
  const plans = offers('update_plan');
  return [
    `Create the notebook "${path}" from scratch for this request:`,
    '',
    request.trim(),
    '',
    ...files,
    '',
    'The notebook is open, empty, with a fresh kernel. Build it like this:',
    ...numbered([
      ...(plans ? ['Call update_plan with the sections you will write.'] : []),
      'Insert a markdown cell with a title (# …) and a two-to-four line plan.',
      'For each section: a markdown cell saying what the step does, then short code cells that ' +
        'you run with run_cell. Read every output (tables, plots) before the next step; fix errors in ' +
        'place with edit_cell and run the cell again.' +
        (plans ? ' Tick the plan off with update_plan.' : ''),
      'End with a markdown cell "## Summary" of the findings that quotes the values the cells printed.'
    ]),
    'Insert cells at the end of the notebook, in reading order. Save files the request asks for in ' +
      'the notebook’s directory. When you are done, the kernel is restarted and every cell runs ' +
      'from the top to verify the notebook: it must not depend on cells you deleted or on state ' +
      'from scratch code.'
  ].join('\n');
}

/** `lines` as a numbered list, from 1. */
function numbered(lines: ReadonlyArray<string>): string[] {
  return lines.map((line, index) => `${index + 1}. ${line}`);
}

/** The prompt after a failed verification. */
export function repairPrompt(verification: IVerification): string {
  const failure = verification.failure;
  return [
    'Verification failed: after a kernel restart, running the notebook from the top stopped at ' +
      (failure
        ? `code cell ${failure.index + 1} of ${verification.total} (cell_id ${failure.cellId}):`
        : `code cell ${verification.ran + 1} of ${verification.total}.`),
    ...(failure
      ? ['Its source:', '```python', failure.source, '```', failure.observation]
      : []),
    '',
    'Fix the notebook so it runs top to bottom in a fresh kernel: edit the cells concerned in ' +
      'place with edit_cell (or insert a missing step where it belongs), run them, then answer ' +
      'in one sentence. It will be verified again.'
  ].join('\n');
}
