/**
 * Editing tools: insert, edit and delete cells. They never overwrite the
 * user's work behind their back: an edit needs the cell to be unchanged
 * since the agent read it, and only the agent's own cells can be deleted.
 */
import { runWatchedCell } from './kernel-tools';
import { defineTool } from './registry';
import { noSuchCellText } from '../port-refusals';

interface IInsertArgs {
  source: string;
  cell_type?: 'code' | 'markdown';
  after_cell_id?: string;
  run?: boolean;
}

/** Whether an insert_cell call also runs its (code) cell. */
function insertRuns(args: IInsertArgs): boolean {
  return args.run === true && (args.cell_type ?? 'code') === 'code';
}

/**
 * `insert_cell`: add a code or markdown cell; with `run: true` a code cell
 * also runs at once, through the same watched execution as `run_cell`, and
 * its outputs come back in this one result (one model round trip per
 * executed cell instead of two).
 */
export const insertCell = defineTool<IInsertArgs>({
  name: 'insert_cell',
  kind: args => (insertRuns(args) ? 'run' : 'edit'),
  title: args =>
    insertRuns(args) ? 'Insert and run this cell' : 'Insert this cell',
  codeArgument: 'source',
  description:
    'Insert a new cell and, with run: true, run it at once and return its outputs in this ' +
    'result (prefer run: true for code). It goes after the cell with after_cell_id, or at ' +
    'the end when that is omitted; the result names its cell_id. Without run the cell does ' +
    'not run (run_cell runs it later).',
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
      },
      run: {
        type: 'boolean',
        description:
          'Run the new code cell now and return its outputs (default false).'
      }
    },
    required: ['source'],
    additionalProperties: false
  },
  async execute(args, { notebook, signal, state }) {
    const cell = await notebook.insertCell({
      type: args.cell_type ?? 'code',
      source: args.source,
      afterCellId: args.after_cell_id
    });
    state.created.add(cell.id);
    state.seen.set(cell.id, cell.source);
    const where = args.after_cell_id
      ? `after cell ${args.after_cell_id}`
      : 'at the end of the notebook';
    const inserted = `Inserted ${cell.type} cell cell_id: ${cell.id} ${where}.`;
    if (insertRuns(args)) {
      const run = await runWatchedCell(notebook, cell.id, signal, state);
      return { ...run, cellId: cell.id, output: `${inserted}\n${run.output}` };
    }
    return {
      ok: true,
      cellId: cell.id,
      output: inserted + (cell.type === 'code' ? ' It has not run yet.' : '')
    };
  }
});

interface IEditArgs {
  cell_id: string;
  source: string;
}

/** `edit_cell`: replace a cell's source, if the user has not changed it since the agent read it. */
export const editCell = defineTool<IEditArgs>({
  name: 'edit_cell',
  kind: 'edit',
  title: 'Replace the cell with this code',
  cellOf: args => args.cell_id,
  approvedWithCell: true,
  codeArgument: 'source',
  description:
    'Replace the whole source of a cell you have read (with read_notebook or read_cell). ' +
    'Refused if the user changed the cell since you read it. Editing does not run it.',
  parameters: {
    type: 'object',
    properties: {
      cell_id: { type: 'string' },
      source: { type: 'string', description: 'The new, complete source.' }
    },
    required: ['cell_id', 'source'],
    additionalProperties: false
  },
  async execute(args, { notebook, state }) {
    const cells = await notebook.getCells();
    const cell = cells.find(c => c.id === args.cell_id);
    if (!cell) {
      return {
        ok: false,
        output: `Error: ${noSuchCellText(args.cell_id)}`
      };
    }
    const seen = state.seen.get(cell.id);
    if (seen === undefined) {
      return {
        ok: false,
        cellId: cell.id,
        output:
          `Refused: you have not seen the whole source of cell ${cell.id} ` +
          '(read_notebook elides long cells): read_cell first, then edit it.'
      };
    }
    if (seen !== cell.source) {
      // The model now knows the current source: a deliberate retry may go through.
      state.seen.set(cell.id, cell.source);
      return {
        ok: false,
        cellId: cell.id,
        output:
          `Refused: the user changed cell ${cell.id} since you read it, so your edit was not applied. ` +
          `Its current source is:\n${cell.source}\nRe-apply your change to this version if it still makes sense.`
      };
    }
    await notebook.editCell(cell.id, args.source);
    state.seen.set(cell.id, args.source);
    return {
      ok: true,
      cellId: cell.id,
      output: `Edited cell_id: ${cell.id}. It has not run since: call run_cell to run it.`
    };
  }
});

/** `delete_cell`: remove a cell the agent created in this run. */
export const deleteCell = defineTool<{ cell_id: string }>({
  name: 'delete_cell',
  kind: 'edit',
  title: 'Delete this cell',
  cellOf: args => args.cell_id,
  description:
    'Delete a cell you inserted during this task (for example a failed attempt). ' +
    'Cells you did not create cannot be deleted unless the user allowed it.',
  parameters: {
    type: 'object',
    properties: { cell_id: { type: 'string' } },
    required: ['cell_id'],
    additionalProperties: false
  },
  async execute(args, { notebook, state }) {
    if (
      !state.created.has(args.cell_id) &&
      !state.settings.allowDeleteAnyCell
    ) {
      return {
        ok: false,
        cellId: args.cell_id,
        output:
          `Refused: cell ${args.cell_id} was not created by you in this task; only the user may delete it. ` +
          'Leave it as it is, or insert a corrected cell after it.'
      };
    }
    await notebook.deleteCell(args.cell_id);
    state.created.delete(args.cell_id);
    state.seen.delete(args.cell_id);
    return { ok: true, output: `Deleted cell ${args.cell_id}.` };
  }
});
