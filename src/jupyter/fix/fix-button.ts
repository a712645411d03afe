/**
 * A "Fix with Agent" button under every code cell whose output is an
 * error (not the user's own interrupt): the shortest path from a traceback
 * to a fix. Added and removed as outputs change, in every open notebook.
 * It sits on its own line under the outputs (the output wrapper is a flex
 * row that would squeeze it), with the agent's icon; where the cell is
 * narrow only the icon shows, its name and tooltip kept (style/base.css).
 */
import type { Cell, CodeCell } from '@jupyterlab/cells';
import type { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import type { TranslationBundle } from '@jupyterlab/translation';
import { agentIcon } from '../../widgets/icon';
import { offersFix, type IOutputLike } from './fix-offer';

const BAR_CLASS = 'jp-AgentFixBar';

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
  const shown: IOutputLike[] = [];
  for (let i = 0; i < outputs.length; i++) {
    const output = outputs.get(i);
    // Only errors are read whole (other outputs may be large images).
    shown.push(
      output.type === 'error'
        ? (output.toJSON() as IOutputLike)
        : { output_type: output.type }
    );
  }
  return offersFix(shown);
}

function sync(
  panel: NotebookPanel,
  cell: Cell,
  fix: (panel: NotebookPanel, cellId: string) => void,
  trans: TranslationBundle
): void {
  const existing = cell.node.querySelector(`:scope > .${BAR_CLASS}`);
  const wanted = cell.model.type === 'code' && hasError(cell as CodeCell);
  if (!wanted) {
    existing?.remove();
    return;
  }
  if (existing) {
    return;
  }
  const wrapper = cell.node.querySelector(':scope > .jp-Cell-outputWrapper');
  if (!wrapper) {
    return;
  }
  const label = trans.__('Fix with Agent');
  const button = document.createElement('button');
  button.className = 'jp-AgentFixButton jp-mod-styled jp-mod-accept';
  // The name stays when a narrow cell shows only the icon.
  button.setAttribute('aria-label', label);
  button.title = trans.__(
    'Ask Notebook Agent to fix this cell (it edits, reruns, and shows you the diff)'
  );
  button.appendChild(
    agentIcon.element({
      tag: 'span',
      className: 'jp-AgentFixButton-icon',
      height: '16px',
      width: '16px'
    })
  );
  const text = document.createElement('span');
  text.className = 'jp-AgentFixButton-label';
  text.textContent = label;
  button.appendChild(text);
  button.addEventListener('click', event => {
    event.stopPropagation();
    fix(panel, cell.model.id);
  });
  const bar = document.createElement('div');
  bar.className = BAR_CLASS;
  bar.appendChild(button);
  wrapper.after(bar);
}
