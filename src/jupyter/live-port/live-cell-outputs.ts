/**
 * What an agent run of a live cell does to its outputs beyond Shift+Enter:
 * they render untrusted, and a flood's capped text is written into the
 * cell (notebook-port.ts runs the cell).
 */
import type { CodeCell, ICodeCellModel } from '@jupyterlab/cells';
import type { CellOutput } from '../../agent/ports';
import { toOutput } from '../../kernel/nbformat-outputs';

/**
 * Replace the cell's last output, a stream that went past the cap, with
 * its capped text (head, what was dropped, tail). Does nothing when the
 * cell is gone or its last output is something else.
 */
export function writeCutStream(cell: CodeCell, output: CellOutput): void {
  const outputs = cell.isDisposed ? null : cell.model?.outputs;
  const last = outputs ? outputs.length - 1 : -1;
  if (!outputs || last < 0 || output.type !== 'stream') {
    return;
  }
  const current = outputs.get(last).toJSON();
  if (current.output_type === 'stream' && current.name === output.name) {
    outputs.set(last, toOutput(output, null));
  }
}

/**
 * Render what the agent's run of a cell outputs as untrusted content, as
 * for a notebook from someone else: `CodeCell.execute` trusts the outputs
 * of a cell the user runs, but the agent's code and the data it displays
 * are steered by model output, and trusted HTML or JavaScript runs in
 * JupyterLab's origin (which drives the user's kernels and the agent's own
 * approvals). Called right after `CodeCell.execute` has set the trust and
 * before any output arrives; the cell's `trusted` metadata goes too, so a
 * save does not sign the notebook as trusted. Running the cell yourself
 * trusts it again.
 */
export function untrustOutputs(model: ICodeCellModel): void {
  model.trusted = false;
  // The origin keeps the change out of the cell's `changed` signal, as
  // `CodeCell.execute` does; JupyterLab 4.0's `transact` takes no origin
  // (it is ignored there), hence its type from 4.1 on.
  (model.sharedModel as { transact: TransactWithOrigin }).transact(
    () => model.deleteMetadata('trusted'),
    false,
    'silent-change'
  );
}

/** `ISharedBase.transact` as JupyterLab 4.1+ declares it. */
type TransactWithOrigin = (
  f: () => void,
  undoable: boolean,
  origin: string
) => void;
