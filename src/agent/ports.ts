/**
 * INotebookPort: everything the agent may do to a notebook.
 *
 * The live implementation drives an open JupyterLab notebook and its kernel;
 * a fake one backs the unit tests; a server-backed one will serve the
 * headless runner. Cells are addressed by id, never by index, so the agent
 * keeps acting on the right cell while the user edits around it.
 */

/** Kind of a notebook cell. */
export type CellType = 'code' | 'markdown' | 'raw';

/** One output of a code cell, in nbformat's terms. */
export type CellOutput =
  | { type: 'stream'; name: 'stdout' | 'stderr'; text: string }
  | {
      type: 'execute_result' | 'display_data';
      data: Record<string, unknown>;
    }
  | { type: 'error'; ename: string; evalue: string; traceback: string[] };

/** A cell as the agent sees it. */
export interface ICellSnapshot {
  id: string;
  type: CellType;
  source: string;
  /** Null for cells that never ran (and for non-code cells). */
  executionCount: number | null;
  outputs: CellOutput[];
}

/** Where to insert a new cell. */
export interface IInsertOptions {
  type: 'code' | 'markdown';
  source: string;
  /** Insert after this cell; at the end of the notebook when omitted. */
  afterCellId?: string;
}

/** What running a cell produced. */
export interface IRunResult {
  cellId: string;
  /** `aborted`: the run was interrupted or cancelled before it finished. */
  status: 'ok' | 'error' | 'aborted';
  executionCount: number | null;
  outputs: CellOutput[];
}

/**
 * Error a port throws for a request it refuses (unknown cell, closed
 * notebook…). Its message is written for the model to read and act on.
 */
export class NotebookPortError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotebookPortError';
  }
}

/** A notebook and its kernel, as the agent sees them. */
export interface INotebookPort {
  /** The notebook's path, for messages. */
  readonly path: string;
  /** All cells, in order. */
  getCells(): Promise<ICellSnapshot[]>;
  /** Insert a cell; resolves with the new cell (and so its id). */
  insertCell(options: IInsertOptions): Promise<ICellSnapshot>;
  /**
   * Run a code cell in the notebook's kernel and wait until it finishes.
   * Aborting the signal interrupts the kernel and resolves as `aborted`.
   */
  runCell(cellId: string, signal?: AbortSignal): Promise<IRunResult>;
  /** Interrupt whatever the kernel is running. */
  interrupt(): Promise<void>;
}
