/**
 * The notebook panel a LiveNotebookPort works in, as the port reaches it:
 * its model, its cells by id and its kernel, each refused with a message
 * for the model once the panel is closed (or the cell is gone, or there is
 * no kernel).
 */
import type { NotebookPanel } from '@jupyterlab/notebook';
import type { Kernel } from '@jupyterlab/services';
import { NotebookPortError } from '../../agent/ports';
import { noSuchCell } from '../../agent/port-refusals';

/** A notebook panel, until it closes. */
export class LivePanel {
  constructor(readonly panel: NotebookPanel) {}

  /** The notebook's path relative to the server root. */
  get path(): string {
    return this.panel.context.path;
  }

  /** True once the panel closed (see `close`). */
  get closed(): boolean {
    return this._closed || this.panel.isDisposed;
  }

  /** Mark the panel closed; `interrupted`: the agent's code was running and was interrupted. */
  close(interrupted: boolean): void {
    this._closed = true;
    this._interruptedOnClose = interrupted;
  }

  /** The notebook model; throws once the panel is closed. */
  model() {
    const model = this.closed ? null : this.panel.content.model;
    if (!model) {
      throw new NotebookPortError(
        this._interruptedOnClose
          ? `The notebook ${this.path} was closed while the agent's code was running in it: ` +
              'that code was interrupted and the agent stopped working on the notebook. ' +
              'Nothing else was changed.'
          : `The notebook ${this.path} was closed, so the agent stopped working on it. ` +
              'Nothing else was changed.'
      );
    }
    return model;
  }

  /** The index of the cell `cellId`; throws when there is none. */
  indexOf(cellId: string): number {
    const model = this.model();
    for (let i = 0; i < model.cells.length; i++) {
      if (model.cells.get(i).id === cellId) {
        return i;
      }
    }
    throw noSuchCell(cellId, this.path);
  }

  /** The session's kernel once it is ready; throws when there is none. */
  async kernel(): Promise<Kernel.IKernelConnection> {
    this.model();
    const sessionContext = this.panel.sessionContext;
    await sessionContext.ready;
    this.model();
    const kernel = sessionContext.session?.kernel;
    if (!kernel) {
      throw new NotebookPortError(
        `${this.path} has no kernel. Ask the user to select one (Kernel > Change Kernel…).`
      );
    }
    return kernel;
  }

  /** The session's kernel now, if any (null once closed). */
  get currentKernel(): Kernel.IKernelConnection | null {
    return this.closed
      ? null
      : (this.panel.sessionContext.session?.kernel ?? null);
  }

  private _closed = false;
  private _interruptedOnClose = false;
}
