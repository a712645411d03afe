/**
 * What a task works in, in JupyterLab: the live port of its notebook (one
 * per panel, built with the first task there; it reads which cells the
 * user ran from the run log kept since start) and the model the chat
 * uses. A notebook closed during a task in it stops the task.
 */
import type { NotebookPanel } from '@jupyterlab/notebook';
import type { IRunTarget } from '../../agent/session/types';
import { LiveNotebookPort } from '../live-port/notebook-port';
import { stopWhenClosed } from '../live-port/stop-on-close';
import type { IRunsPart, IRunsShell } from '../core/runs-seam';

/** The ports and targets of the shell's notebooks. */
export function liveTargets(
  shell: IRunsShell
): Pick<IRunsPart, 'portFor' | 'targetFor'> {
  const ports = new WeakMap<NotebookPanel, LiveNotebookPort>();
  const portFor = (panel: NotebookPanel | null): LiveNotebookPort | null => {
    if (!panel) {
      return null;
    }
    let port = ports.get(panel);
    if (!port) {
      port = new LiveNotebookPort(
        panel,
        shell.contents,
        shell.runLog.of(panel)
      );
      // The card names the cell as it starts; the notebook is saved with it.
      port.cellStarting.connect((_, cellId) => shell.chat.cellStarted(cellId));
      ports.set(panel, port);
    }
    return port;
  };
  return {
    portFor,
    targetFor: (panel: NotebookPanel | null): IRunTarget => {
      stopWhenClosed(shell.chat, panel, shell.trans);
      return {
        model: () => shell.configuration.currentModel(),
        notebook: portFor(panel)
      };
    }
  };
}
