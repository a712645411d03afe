/**
 * Kernel tools: run a cell (watched: partial output after a soft timeout,
 * interrupted after a hard one), keep waiting, run scratch code, inspect
 * variables, interrupt, restart, install packages.
 */
import {
  collectImages,
  formatOutputs,
  formatRunResult
} from '../context/observations';
import { stdoutOf, type INotebookPort, type IRunResult } from '../ports';
import type { IToolResult } from '../types';
import { defineTool } from './registry';
import { endedWithKeyError, frameColumns } from './frame-columns';
import type { RunState } from './run-state';
import { parseVariableRows, variablesProbeCode } from './variables-probe';

/** Longest single `wait` the model may ask for. */
const MAX_WAIT_S = 300;

/** The observation (and UI preview, images) of a run result. */
export function runObservation(
  result: IRunResult,
  state: RunState
): IToolResult {
  if (result.cellId) {
    if (result.status === 'running') {
      state.running.add(result.cellId);
    } else {
      state.running.delete(result.cellId);
    }
  }
  const ok = result.status === 'ok' || result.status === 'running';
  return {
    ok,
    cellId: result.cellId ?? undefined,
    output: formatRunResult(result, undefined, state.offers),
    images: collectImages(result.outputs),
    ...(result.status === 'running' ? { stillRunning: true } : {}),
    preview:
      result.status === 'ok' || result.status === 'error'
        ? formatOutputs(result.outputs)
        : `${result.status}\n${formatOutputs(result.outputs)}`
  };
}

/** `run_cell`: run a code cell in the notebook's kernel. */
export const runCell = defineTool<{ cell_id: string }>({
  name: 'run_cell',
  kind: 'run',
  title: 'Run this cell',
  cellOf: args => args.cell_id,
  approvedWithCell: true,
  description:
    "Run a code cell in the notebook's kernel and return its outputs (text, results, " +
    'errors). Long runs return partial output after a while: then call wait to keep ' +
    'waiting or interrupt_kernel to stop it. input() is not available.',
  parameters: {
    type: 'object',
    properties: {
      cell_id: { type: 'string', description: 'The id of the cell to run.' }
    },
    required: ['cell_id'],
    additionalProperties: false
  },
  execute(args, { notebook, signal, state }) {
    return runWatchedCell(notebook, args.cell_id, signal, state);
  }
});

/**
 * Run a cell through the port's watched execution (the run's soft and hard
 * timeouts; `running` with partial output, then `wait` or interrupt) and
 * turn the result into the observation: `run_cell` and `insert_cell` with
 * `run: true` run cells this one way.
 */
export async function runWatchedCell(
  notebook: INotebookPort,
  cellId: string,
  signal: AbortSignal,
  state: RunState
): Promise<IToolResult> {
  const busy = notebook.kernelState() === 'busy';
  const result = await notebook.runCell(cellId, {
    signal,
    softTimeoutMs: state.settings.softTimeoutMs,
    hardTimeoutMs: state.settings.hardTimeoutMs
  });
  const observation = runObservation(result, state);
  const columns =
    endedWithKeyError(result) && !signal.aborted
      ? await frameColumns(notebook, signal)
      : null;
  if (columns) {
    observation.output += `\n\n${columns}`;
  }
  if (busy) {
    // The request queued behind whatever the kernel was already running.
    observation.output =
      'Note: the kernel was busy with another execution when this cell was sent; it ran after it.\n' +
      observation.output;
  }
  return observation;
}

/** `wait`: keep watching a cell that is still running. */
export const wait = defineTool<{ cell_id: string; seconds?: number }>({
  name: 'wait',
  title: 'Wait for the cell',
  kind: 'read',
  cellOf: args => args.cell_id,
  waitsForCells: true,
  description:
    'Keep waiting for a cell that run_cell reported as still running, up to seconds ' +
    `(default 30, at most ${MAX_WAIT_S}); returns its outputs so far or its final result.`,
  parameters: {
    type: 'object',
    properties: {
      cell_id: { type: 'string' },
      seconds: { type: 'number', minimum: 1, maximum: MAX_WAIT_S }
    },
    required: ['cell_id'],
    additionalProperties: false
  },
  async execute(args, { notebook, signal, state }) {
    const result = await notebook.waitForCell(args.cell_id, {
      signal,
      softTimeoutMs: (args.seconds ?? 30) * 1000,
      hardTimeoutMs: state.settings.hardTimeoutMs
    });
    return runObservation(result, state);
  }
});

/** `run_code`: scratch code in the kernel, without adding a cell. */
export const runCode = defineTool<{ code: string }>({
  name: 'run_code',
  kind: 'run',
  title: 'Run this code in the kernel',
  codeArgument: 'code',
  description:
    'Run a short piece of code in the kernel without adding a cell, for quick ' +
    'inspection (e.g. df.dtypes, df.head()). It shares the notebook’s variables. ' +
    'Use cells (insert_cell with run: true) for work the user should keep.',
  parameters: {
    type: 'object',
    properties: { code: { type: 'string' } },
    required: ['code'],
    additionalProperties: false
  },
  async execute(args, { notebook, signal, state }) {
    // Scratch code has no cell to come back to (`wait` takes a cell_id) and
    // nothing in the notebook shows it running: it is never left running.
    // Its limit is the soft timeout; then it is interrupted, and the
    // observation says to put longer work in a cell.
    const result = await notebook.executeCode(args.code, {
      signal,
      silent: false,
      hardTimeoutMs: Math.min(
        state.settings.softTimeoutMs,
        state.settings.hardTimeoutMs
      )
    });
    return runObservation(result, state);
  }
});

/** The probe's Python for the tool: the user's variables, a short repr each. */
export const INSPECT_VARIABLES_CODE = variablesProbeCode({
  reprChars: 80,
  limit: 200
});

/** `inspect_variables`: what the kernel holds now. */
export const inspectVariables = defineTool<Record<string, never>>({
  name: 'inspect_variables',
  title: 'Look at the kernel’s variables',
  kind: 'read',
  description:
    "List the kernel's user variables: names, types, shapes or lengths, and a short repr.",
  parameters: { type: 'object', properties: {}, additionalProperties: false },
  async execute(_args, { notebook, signal }) {
    // (Never left running: see run_code.)
    const result = await notebook.executeCode(INSPECT_VARIABLES_CODE, {
      signal,
      silent: true,
      hardTimeoutMs: 30_000
    });
    const rows = parseVariableRows(stdoutOf(result.outputs));
    if (!rows) {
      return {
        ok: false,
        output: `Could not inspect variables:\n${formatOutputs(result.outputs)}`
      };
    }
    if (!rows.length) {
      return { ok: true, output: 'The kernel has no user variables yet.' };
    }
    const lines = rows.map(row => {
      const size = row.shape
        ? ` shape ${JSON.stringify(row.shape)}`
        : row.len !== undefined
          ? ` len ${row.len}`
          : '';
      return `${row.name}: ${row.type}${size} = ${row.repr}`;
    });
    return { ok: true, output: lines.join('\n') };
  }
});

/** `interrupt_kernel`: stop what the kernel is running. */
export const interruptKernel = defineTool<Record<string, never>>({
  name: 'interrupt_kernel',
  title: 'Interrupt the kernel',
  kind: 'read',
  description:
    'Interrupt the kernel (like the stop button), e.g. a cell that runs too long.',
  parameters: { type: 'object', properties: {}, additionalProperties: false },
  async execute(_args, { notebook, state }) {
    await notebook.interrupt();
    const running = [...state.running];
    return {
      ok: true,
      output:
        'Interrupted the kernel.' +
        (running.length
          ? ` Cells that were running: ${running.join(', ')} (call wait to see how they ended).`
          : '')
    };
  }
});

/** `restart_kernel`: start over with an empty kernel (always asks the user). */
export const restartKernel = defineTool<Record<string, never>>({
  name: 'restart_kernel',
  kind: 'restart',
  title: 'Restart the kernel (all variables are lost)',
  description:
    'Restart the kernel: every variable is lost and cells must run again. The user is asked first.',
  parameters: { type: 'object', properties: {}, additionalProperties: false },
  async execute(_args, { notebook, state }) {
    await notebook.restartKernel();
    state.running.clear();
    return {
      ok: true,
      output:
        'The kernel restarted: all variables are gone; re-run the cells you need.'
    };
  }
});

/** `install_package`: `%pip install` in the notebook's own kernel environment. */
export const installPackage = defineTool<{ packages: string }>({
  name: 'install_package',
  kind: 'run',
  title: 'Install these packages',
  reachesOutside: true,
  codeArgument: 'packages',
  description:
    "Install Python packages into the notebook kernel's environment with %pip install " +
    '(e.g. "seaborn scikit-learn"). Restarting the kernel may be needed for some upgrades.',
  parameters: {
    type: 'object',
    properties: {
      packages: {
        type: 'string',
        description: 'Space-separated pip requirement specifiers.'
      }
    },
    required: ['packages'],
    additionalProperties: false
  },
  async execute(args, { notebook, signal, state }) {
    const specs = args.packages.split(/\s+/).filter(Boolean);
    if (
      !specs.length ||
      specs.some(spec => !/^[A-Za-z0-9][A-Za-z0-9._\-[\],<>=!~]*$/.test(spec))
    ) {
      return {
        ok: false,
        output: `Refused: "${args.packages}" is not a list of package names.`
      };
    }
    const result = await notebook.executeCode(
      `%pip install ${specs.join(' ')}`,
      {
        // Until pip is done (an install cut short can leave a package half
        // installed), up to the hard timeout; never left running (run_code).
        signal,
        silent: false,
        hardTimeoutMs: state.settings.hardTimeoutMs
      }
    );
    return runObservation(result, state);
  }
});
