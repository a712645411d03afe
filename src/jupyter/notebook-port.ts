/**
 * INotebookPort over a live JupyterLab notebook and its kernel.
 *
 * Cells are inserted through the shared notebook model and run with
 * `NotebookActions.runCells`, the same path as Shift+Enter, so outputs and
 * execution counts render in the notebook as if the user ran the cell. The
 * port holds on to its panel: the agent keeps working on the notebook it
 * started in, even when the user switches tabs.
 */
import type { ICodeCellModel } from '@jupyterlab/cells';
import type * as nbformat from '@jupyterlab/nbformat';
import { NotebookActions, type NotebookPanel } from '@jupyterlab/notebook';
import {
  NotebookPortError,
  type CellOutput,
  type ICellSnapshot,
  type IInsertOptions,
  type INotebookPort,
  type IRunResult
} from '../agent/ports';

/** The live notebook in `panel`. */
export class LiveNotebookPort implements INotebookPort {
  constructor(private readonly _panel: NotebookPanel) {}

  get path(): string {
    return this._panel.context.path;
  }

  async getCells(): Promise<ICellSnapshot[]> {
    const model = this._model();
    const cells: ICellSnapshot[] = [];
    for (let i = 0; i < model.cells.length; i++) {
      const cell = model.cells.get(i);
      const code = cell.type === 'code' ? (cell as ICodeCellModel) : null;
      cells.push({
        id: cell.id,
        type:
          cell.type === 'code' || cell.type === 'markdown' ? cell.type : 'raw',
        source: cell.sharedModel.getSource(),
        executionCount: code?.executionCount ?? null,
        outputs: code ? toCellOutputs(code.outputs.toJSON()) : []
      });
    }
    return cells;
  }

  async insertCell(options: IInsertOptions): Promise<ICellSnapshot> {
    const model = this._model();
    let index = model.cells.length;
    if (options.afterCellId !== undefined) {
      index = this._indexOf(options.afterCellId) + 1;
    }
    const shared = model.sharedModel.insertCell(index, {
      cell_type: options.type,
      source: options.source,
      metadata: {}
    });
    return {
      id: shared.getId(),
      type: options.type,
      source: options.source,
      executionCount: null,
      outputs: []
    };
  }

  async runCell(cellId: string, signal?: AbortSignal): Promise<IRunResult> {
    const notebook = this._panel.content;
    const index = this._indexOf(cellId);
    const cell = notebook.widgets[index];
    if (cell.model.type !== 'code') {
      throw new NotebookPortError(
        `Cell ${cellId} is a ${cell.model.type} cell; only code cells can run.`
      );
    }
    const sessionContext = this._panel.sessionContext;
    await sessionContext.ready;
    if (!sessionContext.session?.kernel) {
      throw new NotebookPortError(
        `${this.path} has no kernel. Ask the user to select a kernel (Kernel > Change Kernel…).`
      );
    }
    let aborted = false;
    const onAbort = () => {
      aborted = true;
      void this.interrupt();
    };
    signal?.addEventListener('abort', onAbort);
    try {
      if (signal?.aborted) {
        onAbort();
      } else {
        await NotebookActions.runCells(notebook, [cell], sessionContext);
      }
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
    const code = cell.model as ICodeCellModel;
    const outputs = toCellOutputs(code.outputs.toJSON());
    return {
      cellId,
      status: aborted
        ? 'aborted'
        : outputs.some(o => o.type === 'error')
          ? 'error'
          : 'ok',
      executionCount: code.executionCount ?? null,
      outputs
    };
  }

  async interrupt(): Promise<void> {
    await this._panel.sessionContext.session?.kernel?.interrupt();
  }

  private _model() {
    const model = this._panel.isDisposed ? null : this._panel.content.model;
    if (!model) {
      throw new NotebookPortError(
        `The notebook ${this.path} was closed, so the agent stopped working on it. Nothing else was changed.`
      );
    }
    return model;
  }

  private _indexOf(cellId: string): number {
    const model = this._model();
    for (let i = 0; i < model.cells.length; i++) {
      if (model.cells.get(i).id === cellId) {
        return i;
      }
    }
    throw new NotebookPortError(
      `There is no cell with id ${cellId} in ${this.path} (it may have been deleted). ` +
        'Call read_notebook to see the current cell ids.'
    );
  }
}

function text(value: nbformat.MultilineString | undefined): string {
  return Array.isArray(value) ? value.join('') : (value ?? '');
}

/** Convert nbformat outputs to the agent's output type. */
export function toCellOutputs(outputs: nbformat.IOutput[]): CellOutput[] {
  const result: CellOutput[] = [];
  for (const output of outputs) {
    switch (output.output_type) {
      case 'stream': {
        const stream = output as nbformat.IStream;
        result.push({
          type: 'stream',
          name: stream.name,
          text: text(stream.text)
        });
        break;
      }
      case 'error': {
        const error = output as nbformat.IError;
        result.push({
          type: 'error',
          ename: error.ename,
          evalue: error.evalue,
          traceback: error.traceback ?? []
        });
        break;
      }
      case 'execute_result':
      case 'display_data':
        result.push({
          type: output.output_type,
          data: {
            ...((output as nbformat.IDisplayData).data as Record<
              string,
              unknown
            >)
          }
        });
        break;
      default:
        break;
    }
  }
  return result;
}
