/**
 * The first notebook tools: read the notebook, insert a cell, run a cell.
 *
 * Every result names the cells it touched by id, so the model can refer to
 * them in its next call.
 */
import {
  formatCell,
  formatOutputs,
  formatRunResult,
  truncateMiddle
} from '../context/observations';
import { defineTool, type ITool } from './registry';

/** Character budget for a whole `read_notebook` observation. */
const NOTEBOOK_BUDGET = 24000;

/** `read_notebook`: every cell with its id, type, source and a short output. */
export const readNotebook = defineTool<Record<string, never>>({
  name: 'read_notebook',
  description:
    'Read the notebook: every cell with its cell_id, type, source, execution ' +
    'count and a short summary of its output. Call this first to see what ' +
    'the user has done, and to find cell ids.',
  parameters: { type: 'object', properties: {}, additionalProperties: false },
  async execute(_args, { notebook }) {
    const cells = await notebook.getCells();
    if (!cells.length) {
      return { ok: true, output: `${notebook.path} has no cells yet.` };
    }
    const body = cells.map(cell => formatCell(cell)).join('\n');
    return {
      ok: true,
      output: truncateMiddle(
        `${notebook.path}: ${cells.length} cells\n${body}`,
        NOTEBOOK_BUDGET
      )
    };
  }
});

interface IInsertArgs {
  source: string;
  cell_type?: 'code' | 'markdown';
  after_cell_id?: string;
}

/** `insert_cell`: add a code or markdown cell. */
export const insertCell = defineTool<IInsertArgs>({
  name: 'insert_cell',
  description:
    'Insert a new cell into the notebook, after the cell with after_cell_id, ' +
    'or at the end when after_cell_id is omitted. Returns the new cell_id. ' +
    'Inserting does not run the cell: call run_cell next.',
  parameters: {
    type: 'object',
    properties: {
      source: { type: 'string', description: 'The cell source.' },
      cell_type: {
        type: 'string',
        enum: ['code', 'markdown'],
        description: 'Default: code.'
      },
      after_cell_id: {
        type: 'string',
        description: 'Insert after this cell; omit to append at the end.'
      }
    },
    required: ['source'],
    additionalProperties: false
  },
  async execute(args, { notebook }) {
    const cell = await notebook.insertCell({
      type: args.cell_type ?? 'code',
      source: args.source,
      afterCellId: args.after_cell_id
    });
    const where = args.after_cell_id
      ? `after cell ${args.after_cell_id}`
      : 'at the end of the notebook';
    return {
      ok: true,
      cellId: cell.id,
      output:
        `Inserted ${cell.type} cell cell_id: ${cell.id} ${where}.` +
        (cell.type === 'code' ? ' It has not run yet.' : '')
    };
  }
});

interface IRunArgs {
  cell_id: string;
}

/** `run_cell`: run a code cell in the notebook's kernel and return its outputs. */
export const runCell = defineTool<IRunArgs>({
  name: 'run_cell',
  description:
    "Run a code cell in the notebook's kernel, wait for it to finish, and " +
    'return its outputs (text, results, errors with traceback).',
  parameters: {
    type: 'object',
    properties: {
      cell_id: { type: 'string', description: 'The id of the cell to run.' }
    },
    required: ['cell_id'],
    additionalProperties: false
  },
  async execute(args, { notebook, signal }) {
    const result = await notebook.runCell(args.cell_id, { signal });
    return {
      ok: result.status === 'ok',
      cellId: result.cellId ?? undefined,
      output: formatRunResult(result),
      preview:
        result.status === 'aborted'
          ? `Interrupted.\n${formatOutputs(result.outputs)}`
          : formatOutputs(result.outputs)
    };
  }
});

/** The tools of the foundation agent. */
export function notebookTools(): ITool<never>[] {
  return [readNotebook, insertCell, runCell] as ITool<never>[];
}
