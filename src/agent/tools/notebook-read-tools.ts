/**
 * Reading tools: the notebook (paged), one cell, and further pages of a
 * long output. What the agent reads is remembered, so a later edit can tell
 * whether the user changed the cell since.
 */
import {
  cellHeader,
  formatCell,
  formatOutputs,
  truncateMiddle
} from '../context/observations';
import type { ICellSnapshot } from '../ports';
import { defineTool } from './registry';
import { noSuchCell } from '../port-refusals';

/** Character budget for a whole `read_notebook` page. */
const NOTEBOOK_BUDGET = 24000;
/** Default and maximum cells per `read_notebook` page. */
const PAGE_SIZE = 40;
/** Characters per `read_output` page. */
const OUTPUT_PAGE = 4000;

/** Whether a code cell was edited since it last ran. */
export function isStale(cell: ICellSnapshot): boolean {
  return (
    cell.type === 'code' &&
    cell.lastRunSource !== undefined &&
    cell.lastRunSource !== null &&
    cell.lastRunSource !== cell.source
  );
}

/** A note when cells ran in another order than they appear. */
export function executionOrderNote(cells: ICellSnapshot[]): string | null {
  const counts = cells
    .filter(c => c.type === 'code' && c.executionCount !== null)
    .map(c => c.executionCount as number);
  const sorted = [...counts].sort((a, b) => a - b);
  if (counts.every((count, i) => count === sorted[i])) {
    return null;
  }
  return (
    `Note: cells were run out of order (execution counts in cell order: ${counts.join(', ')}); ` +
    'the kernel state may not match reading top to bottom.'
  );
}

async function findCell(
  cells: Promise<ICellSnapshot[]>,
  cellId: string
): Promise<ICellSnapshot> {
  const cell = (await cells).find(c => c.id === cellId);
  if (!cell) {
    throw noSuchCell(cellId);
  }
  return cell;
}

interface IReadNotebookArgs {
  start?: number;
  limit?: number;
}

/** `read_notebook`: a page of cells with ids, sources and output summaries. */
export const readNotebook = defineTool<IReadNotebookArgs>({
  name: 'read_notebook',
  title: 'Read the notebook',
  kind: 'read',
  description:
    'Read the notebook: each cell with its cell_id, type, source, execution count, ' +
    'a short output summary, and whether it was edited since it last ran (stale). ' +
    'Paged: pass start (0-based cell index) and limit to read further.',
  parameters: {
    type: 'object',
    properties: {
      start: {
        type: 'integer',
        minimum: 0,
        description: 'First cell index (default 0).'
      },
      limit: {
        type: 'integer',
        minimum: 1,
        maximum: 200,
        description: `Cells per page (default ${PAGE_SIZE}).`
      }
    },
    additionalProperties: false
  },
  async execute(args, { notebook, state }) {
    const cells = await notebook.getCells();
    if (!cells.length) {
      return { ok: true, output: `${notebook.path} has no cells yet.` };
    }
    const start = Math.min(args.start ?? 0, cells.length - 1);
    const page = cells.slice(start, start + (args.limit ?? PAGE_SIZE));
    const lines = [
      `${notebook.path}: cells ${start}–${start + page.length - 1} of ${cells.length}`
    ];
    const order = executionOrderNote(cells);
    if (order) {
      lines.push(order);
    }
    for (const cell of page) {
      lines.push(
        formatCell(cell) +
          (isStale(cell) ? '\n(edited since it last ran: stale)' : '')
      );
    }
    const end = start + page.length;
    if (end < cells.length) {
      lines.push(
        `… ${cells.length - end} more cells: call read_notebook with start=${end}.`
      );
    }
    const output = truncateMiddle(lines.join('\n'), NOTEBOOK_BUDGET);
    // Seen only when the page showed the whole source: a long cell elided
    // in the middle must be read with read_cell before it can be edited.
    for (const cell of page) {
      if (output.includes(`${cellHeader(cell)}\n${cell.source}`)) {
        state.seen.set(cell.id, cell.source);
      }
    }
    return { ok: true, output };
  }
});

/** `read_cell`: one cell in full. */
export const readCell = defineTool<{ cell_id: string }>({
  name: 'read_cell',
  title: 'Read a cell',
  kind: 'read',
  cellOf: args => args.cell_id,
  description:
    'Read one cell in full: its source and its outputs (within a budget).',
  parameters: {
    type: 'object',
    properties: { cell_id: { type: 'string' } },
    required: ['cell_id'],
    additionalProperties: false
  },
  async execute(args, { notebook, state }) {
    const cell = await findCell(notebook.getCells(), args.cell_id);
    state.seen.set(cell.id, cell.source);
    const head =
      `cell_id: ${cell.id} · ${cell.type}` +
      (cell.executionCount !== null
        ? ` · execution count ${cell.executionCount}`
        : '') +
      (isStale(cell) ? ' · edited since it last ran (stale)' : '');
    const body = [`${head}\nSource:\n${cell.source}`];
    if (cell.type === 'code') {
      body.push(`Output:\n${formatOutputs(cell.outputs)}`);
    }
    return { ok: true, cellId: cell.id, output: body.join('\n') };
  }
});

interface IReadOutputArgs {
  cell_id: string;
  offset?: number;
  length?: number;
}

/** `read_output`: page through a long output. */
export const readOutput = defineTool<IReadOutputArgs>({
  name: 'read_output',
  title: 'Read a cell’s output',
  kind: 'read',
  cellOf: args => args.cell_id,
  description:
    'Page through the full text of a cell’s outputs when an observation said ' +
    'characters were elided: offset is a character position.',
  parameters: {
    type: 'object',
    properties: {
      cell_id: { type: 'string' },
      offset: { type: 'integer', minimum: 0 },
      length: { type: 'integer', minimum: 100, maximum: 20000 }
    },
    required: ['cell_id'],
    additionalProperties: false
  },
  async execute(args, { notebook }) {
    const cell = await findCell(notebook.getCells(), args.cell_id);
    const full = formatOutputs(cell.outputs, Number.MAX_SAFE_INTEGER);
    const offset = Math.min(args.offset ?? 0, full.length);
    const length = args.length ?? OUTPUT_PAGE;
    const page = full.slice(offset, offset + length);
    const end = offset + page.length;
    return {
      ok: true,
      cellId: cell.id,
      output:
        `Output of cell_id: ${cell.id}, characters ${offset}–${end} of ${full.length}:\n${page}` +
        (end < full.length
          ? `\n… call read_output with offset=${end} for more.`
          : '')
    };
  }
});
