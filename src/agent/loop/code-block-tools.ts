/**
 * The tools the text protocol's code blocks become (./text-protocol-client.ts):
 * a block is a new cell that runs (`add_and_run_cell`), or, in a turn that
 * rewrites one cell (Fix this cell, a failed step of Generate), that cell's
 * new source, run at once (`rewrite_and_run_cell`). One model round trip per
 * executed cell either way.
 */
import { runWatchedCell } from '../tools/kernel-tools';
import { noSuchCellText } from '../port-refusals';
import { defineTool } from '../tools/registry';
import { REWRITE_TOOL, TEXT_PROTOCOL_TOOL } from './code-block-names';

/** `add_and_run_cell`: append a code cell and run it. */
export const addAndRunCell = defineTool<{ source: string }>({
  name: TEXT_PROTOCOL_TOOL,
  title: 'Insert and run this cell',
  kind: 'run',
  codeArgument: 'source',
  description: 'Append a code cell to the notebook and run it.',
  parameters: {
    type: 'object',
    properties: { source: { type: 'string' } },
    required: ['source'],
    additionalProperties: false
  },
  async execute(args, { notebook, signal, state }) {
    const cell = await notebook.insertCell({
      type: 'code',
      source: args.source
    });
    state.created.add(cell.id);
    state.seen.set(cell.id, cell.source);
    // The same watched run as run_cell and insert_cell's run: true.
    return runWatchedCell(notebook, cell.id, signal, state);
  }
});

/**
 * `rewrite_and_run_cell`: replace a cell's whole source and run it. A
 * small model asked to fix a cell explains the fix in words (measured:
 * Qwen2.5-Coder-1.5B, 0 of 3 fixed through edit_cell); asked for the
 * corrected cell as a code block, begun for it, it writes the code, and
 * this puts it where it belongs. The user's change since the turn began
 * is never overwritten.
 */
export const rewriteAndRunCell = defineTool<{
  cell_id: string;
  source: string;
}>({
  name: REWRITE_TOOL,
  title: 'Replace the cell with this code and run it',
  kind: 'run',
  cellOf: args => args.cell_id,
  approvedWithCell: true,
  codeArgument: 'source',
  description: 'Replace the whole source of a cell and run it.',
  parameters: {
    type: 'object',
    properties: { cell_id: { type: 'string' }, source: { type: 'string' } },
    required: ['cell_id', 'source'],
    additionalProperties: false
  },
  async execute(args, { notebook, signal, state }) {
    const cell = (await notebook.getCells()).find(c => c.id === args.cell_id);
    if (!cell) {
      return { ok: false, output: `Error: ${noSuchCellText(args.cell_id)}` };
    }
    const seen = state.seen.get(cell.id);
    if (seen !== undefined && seen !== cell.source) {
      state.seen.set(cell.id, cell.source);
      return {
        ok: false,
        cellId: cell.id,
        output:
          `Refused: the user changed cell ${cell.id} meanwhile, so it was not replaced. ` +
          `Its current source is:\n${cell.source}`
      };
    }
    if (args.source !== cell.source) {
      await notebook.editCell(cell.id, args.source);
    }
    state.seen.set(cell.id, args.source);
    return runWatchedCell(notebook, cell.id, signal, state);
  }
});
