/**
 * What the prompt's `@` picker offers: the active notebook's cells, and the
 * names its executed code cells assign (a guess at the kernel's variables
 * that costs no kernel call).
 */
import type { ICodeCellModel } from '@jupyterlab/cells';
import type { INotebookTracker } from '@jupyterlab/notebook';
import {
  assignedNames,
  type ICellChoice,
  type IMentionSource
} from '../components/mentions';

/** The picker's source for the notebook `tracker` has current. */
export function notebookMentions(tracker: INotebookTracker): IMentionSource {
  const cells = (): ICellChoice[] =>
    tracker.currentWidget?.content.widgets.map((cell, index) => ({
      id: cell.model.id,
      index: index + 1,
      type: cell.model.type,
      source: cell.model.sharedModel.getSource()
    })) ?? [];
  return {
    cells,
    variables: () =>
      assignedNames(
        (tracker.currentWidget?.content.widgets ?? [])
          .filter(
            cell =>
              cell.model.type === 'code' &&
              (cell.model as ICodeCellModel).executionCount !== null
          )
          .map(cell => cell.model.sharedModel.getSource())
      )
  };
}
