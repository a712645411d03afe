/**
 * A "Fix with Agent" button under every code cell whose output is an
 * error: the shortest path from a traceback to a fix. Added and removed as
 * outputs change, in every open notebook.
 */
import type { Cell, CodeCell } from '@jupyterlab/cells';
import type { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import type { TranslationBundle } from '@jupyterlab/translation';

const BUTTON_CLASS = 'jp-AgentFixButton';

/** Keep the buttons in sync in every notebook; `fix` receives the cell id. */
export function installFixButtons(
  tracker: INotebookTracker,
  fix: (panel: NotebookPanel, cellId: string) => void,
  trans: TranslationBundle
): void {
  const watch = (panel: NotebookPanel) => {
    let pending = 0;
    const refresh = () => {
      window.clearTimeout(pending);
      pending = window.setTimeout(() => {
        if (!panel.isDisposed) {
          panel.content.widgets.forEach(cell => sync(panel, cell, fix, trans));
        }
      }, 100);
    };
    panel.content.modelContentChanged.connect(refresh);
    panel.context.ready.then(refresh).catch(() => undefined);
    panel.disposed.connect(() => window.clearTimeout(pending));
  };
  tracker.widgetAdded.connect((_, panel) => watch(panel));
  tracker.forEach(watch);
}

function hasError(cell: CodeCell): boolean {
  const outputs = cell.model.outputs;
  for (let i = 0; i < outputs.length; i++) {
    if (outputs.get(i).type === 'error') {
      return true;
    }
  }
  return false;
}

function sync(
  panel: NotebookPanel,
  cell: Cell,
  fix: (panel: NotebookPanel, cellId: string) => void,
  trans: TranslationBundle
): void {
  const existing = cell.node.querySelector(`:scope .${BUTTON_CLASS}`);
  const wanted = cell.model.type === 'code' && hasError(cell as CodeCell);
  if (!wanted) {
    existing?.remove();
    return;
  }
  if (existing) {
    return;
  }
  const wrapper = cell.node.querySelector('.jp-Cell-outputWrapper');
  if (!wrapper) {
    return;
  }
  const button = document.createElement('button');
  button.className = `${BUTTON_CLASS} jp-mod-styled jp-mod-accept`;
  button.textContent = trans.__('Fix with Agent');
  button.title = trans.__(
    'Ask Notebook Agent to fix this cell (it edits, reruns, and shows you the diff)'
  );
  button.addEventListener('click', event => {
    event.stopPropagation();
    fix(panel, cell.model.id);
  });
  wrapper.appendChild(button);
}
