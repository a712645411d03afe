/**
 * What each open notebook's cells held when they last ran, whoever ran
 * them (the user's Shift+Enter, Run All, the agent), kept from
 * JupyterLab's start: the live port (./notebook-port.ts), built with the
 * agent's first task in a notebook, reads from it which cells changed since
 * they ran. One connection to JupyterLab's static signal serves every
 * notebook; a closed notebook's entries go with it.
 */
import {
  NotebookActions,
  type Notebook,
  type NotebookPanel
} from '@jupyterlab/notebook';
import type { Cell, ICellModel } from '@jupyterlab/cells';

/** The source each cell held when it last ran, by cell id. */
export type LastRunSources = Map<string, string>;

/** The runs of every notebook, since start. */
export class RunLog {
  constructor() {
    NotebookActions.executionScheduled.connect(this._onScheduled, this);
  }

  /** The log of `panel`'s notebook (the port records its own runs there too). */
  of(panel: NotebookPanel): LastRunSources {
    return this._logOf(panel.content);
  }

  private _logOf(notebook: Notebook): LastRunSources {
    let log = this._logs.get(notebook);
    if (!log) {
      log = new Map();
      this._logs.set(notebook, log);
    }
    return log;
  }

  private _onScheduled(
    _: unknown,
    args: { notebook: Notebook; cell: Cell }
  ): void {
    const model = args.cell.model as ICellModel | null;
    if (model) {
      this._logOf(args.notebook).set(model.id, model.sharedModel.getSource());
    }
  }

  private readonly _logs = new WeakMap<Notebook, LastRunSources>();
}
