/**
 * What the prompt's `@` picker offers: the active notebook's cells, and its
 * variables: at once the names its executed code cells assign (a guess that
 * costs no kernel call), then the kernel's own list when it answers.
 */
import type { ICodeCellModel } from '@jupyterlab/cells';
import type { INotebookTracker } from '@jupyterlab/notebook';
import type { KernelMessage } from '@jupyterlab/services';
import {
  assignedNames,
  parseNameList,
  type ICellChoice,
  type IMentionSource
} from '../../components/prompt/mentions';

/**
 * The user's variables as IPython lists them (`%who_ls`: no IPython
 * internals), without modules. Evaluated as a user expression of a silent
 * execute: nothing runs, nothing is counted or stored in the history.
 */
const NAMES_EXPRESSION =
  "[n for n in get_ipython().run_line_magic('who_ls', '') " +
  "if type(globals().get(n)).__name__ != 'module']";

/** How long the picker waits for the kernel's list (a busy kernel answers later, or never). */
const KERNEL_WAIT_MS = 2000;

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
      ),
    kernelVariables: async () => {
      const kernel = tracker.currentWidget?.sessionContext.session?.kernel;
      if (!kernel || !['idle', 'busy'].includes(kernel.status)) {
        return null;
      }
      const future = kernel.requestExecute({
        code: '',
        silent: true,
        store_history: false,
        allow_stdin: false,
        user_expressions: { names: NAMES_EXPRESSION }
      });
      const reply = await Promise.race([
        future.done.catch(() => null),
        new Promise<null>(resolve =>
          setTimeout(() => resolve(null), KERNEL_WAIT_MS)
        )
      ]);
      const content = reply?.content as KernelMessage.IExecuteReply | undefined;
      const value = content?.user_expressions?.names as
        { status?: string; data?: { 'text/plain'?: string } } | undefined;
      return value?.status === 'ok' && value.data?.['text/plain']
        ? parseNameList(value.data['text/plain'])
        : null;
    }
  };
}
