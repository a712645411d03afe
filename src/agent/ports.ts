/**
 * INotebookPort: everything the agent may do to a notebook and its kernel.
 *
 * The live implementation drives an open JupyterLab notebook
 * (src/jupyter/live-port/notebook-port.ts); a server-backed one drives a notebook file
 * and a kernel session through a Jupyter server (src/headless/server-port/server-port.ts);
 * a fake one backs the unit tests (src/agent/testing/fake-notebook.ts).
 * Cells are addressed by id, never by index, so the agent keeps acting on the
 * right cell while the user edits around it.
 */

/** Kind of a notebook cell. */
export type CellType = 'code' | 'markdown' | 'raw';

/** One output of a code cell, in nbformat's terms. */
export type CellOutput =
  | { type: 'stream'; name: 'stdout' | 'stderr'; text: string }
  | {
      type: 'execute_result' | 'display_data';
      data: Record<string, unknown>;
      metadata?: Record<string, unknown>;
    }
  | { type: 'error'; ename: string; evalue: string; traceback: string[] };

/** What `outputs` printed to stdout, joined (the silent probes answer there). */
export function stdoutOf(outputs: ReadonlyArray<CellOutput>): string {
  return outputs
    .map(o => (o.type === 'stream' && o.name === 'stdout' ? o.text : ''))
    .join('');
}

/** A cell as the agent sees it. */
export interface ICellSnapshot {
  id: string;
  type: CellType;
  source: string;
  /** Null for cells that never ran (and for non-code cells). */
  executionCount: number | null;
  outputs: CellOutput[];
  /**
   * The source as it was when the cell last ran in this session, when the
   * port knows it; a cell whose source differs is stale.
   */
  lastRunSource?: string | null;
}

/** Where to insert a new cell. */
export interface IInsertOptions {
  type: 'code' | 'markdown';
  source: string;
  /** Insert after this cell; at the end of the notebook when omitted. */
  afterCellId?: string;
}

/**
 * How long to watch an execution. Every port watches with `watchRun`
 * (./watch-run.ts), the fake included; the port contract holds them to it.
 */
export interface IRunOptions {
  /** Aborting interrupts the kernel and resolves as `aborted`. */
  signal?: AbortSignal;
  /**
   * After this long, resolve with status `running` and the outputs so far;
   * the execution goes on and `waitForCell` can pick it up again. Not while
   * the execution is stopping (hard timeout, abort): then the watch waits
   * for its end, which the stop's grace period bounds.
   */
  softTimeoutMs?: number;
  /** After this long (from the start of the execution), interrupt the kernel and resolve as `timeout`. */
  hardTimeoutMs?: number;
}

/**
 * How an execution ended, or that it has not ended yet.
 * - `ok` / `error`: finished, without or with an error output;
 * - `running`: the soft timeout passed, outputs are partial;
 * - `aborted`: stopped by the user (the kernel was interrupted);
 * - `timeout`: the hard timeout passed (the kernel was interrupted);
 * - `kernel-died`: the kernel died or restarted during the execution.
 */
export type RunStatus =
  'ok' | 'error' | 'running' | 'aborted' | 'timeout' | 'kernel-died';

/** What running a cell (or scratch code) produced so far. */
export interface IRunResult {
  /** The cell, or null for scratch code. */
  cellId: string | null;
  status: RunStatus;
  executionCount: number | null;
  outputs: CellOutput[];
  /** Milliseconds from the start of the execution to this result. */
  elapsedMs?: number;
  /** True when the code asked for input() and got none (stdin is disabled for agent runs). */
  stdinRefused?: boolean;
  /**
   * With `kernel-died`, what happened when the port knows: `restarted`, the
   * kernel was restarted by the user or another client; `lost`, the kernel
   * is gone (the Jupyter server stopped or restarted, or it was shut down).
   */
  kernelEvent?: 'restarted' | 'lost';
  /**
   * With `timeout` or `aborted`: the kernel did not stop when interrupted
   * (the code ignores SIGINT or is stuck in native code); it is still
   * running the code and will run nothing else until restarted.
   */
  notStopped?: boolean;
  /**
   * With `aborted`: the code ignored the user's Stop for the grace period,
   * so the port restarted the kernel (all variables are lost).
   */
  kernelRestarted?: boolean;
}

/** How to interrupt (see INotebookPort.interrupt). */
export interface IInterruptOptions {
  /**
   * The user's Stop: the port's runs that are still going end as
   * `aborted`, a kernel that ignores the interrupt for the grace period is
   * restarted, and the call resolves once those runs have ended.
   */
  userStop?: boolean;
}

/** Kernel state as the agent needs it. */
export type KernelState =
  'idle' | 'busy' | 'starting' | 'restarting' | 'dead' | 'none' | 'unknown';

/** An entry of a directory listing. */
export interface IFileEntry {
  /** Path relative to the server root. */
  path: string;
  type: 'file' | 'directory' | 'notebook';
  /** Bytes, when known. */
  size?: number | null;
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

/**
 * What `readFile` throws when the path names no file (nothing is there):
 * `write_file` tells creating a file from replacing one by it.
 */
export class NoSuchFileError extends NotebookPortError {
  constructor(message: string) {
    super(message);
    this.name = 'NoSuchFileError';
  }
}

/**
 * Largest file `readFile` downloads: the contents API has no ranges, so a
 * file is fetched whole before anything is cut (a 2 GB log would be 2 GB in
 * the browser). The agent reads bigger files with code.
 */
export const MAX_READ_BYTES = 5 * 1024 * 1024;

/** What `readFile` throws for a file over MAX_READ_BYTES (it was not downloaded). */
export class FileTooLargeError extends NotebookPortError {
  constructor(
    path: string,
    readonly bytes: number
  ) {
    super(
      `Not read: ${path} is ${(bytes / 1024 / 1024).toFixed(1)} MB, too large to read as a whole ` +
        '(the server sends a file whole). Read its first lines with code instead, e.g. ' +
        'pandas.read_csv(path, nrows=20) or open(path).readline().'
    );
    this.name = 'FileTooLargeError';
  }
}

/** A notebook and its kernel, as the agent sees them. */
export interface INotebookPort {
  /** The notebook's path relative to the server root, for messages. */
  readonly path: string;
  /** All cells, in order. */
  getCells(): Promise<ICellSnapshot[]>;
  /** Insert a cell; resolves with the new cell (and so its id). */
  insertCell(options: IInsertOptions): Promise<ICellSnapshot>;
  /** Replace a cell's source (its outputs stay until it runs again). */
  editCell(cellId: string, source: string): Promise<ICellSnapshot>;
  /** Delete a cell. */
  deleteCell(cellId: string): Promise<void>;
  /**
   * Put back a code cell's outputs and execution count as a snapshot had
   * them (Reject of a fix): the cell shows what it showed before the agent
   * ran it. Its source is left alone; a running cell is refused.
   */
  restoreOutputs(
    cellId: string,
    outputs: ReadonlyArray<CellOutput>,
    executionCount: number | null
  ): Promise<void>;
  /**
   * Run a code cell in the notebook's kernel with stdin disabled, watching
   * it as `options` say. Outputs land in the cell as if the user ran it.
   */
  runCell(cellId: string, options?: IRunOptions): Promise<IRunResult>;
  /** Keep watching a cell whose run returned `running`. */
  waitForCell(cellId: string, options?: IRunOptions): Promise<IRunResult>;
  /**
   * Run scratch code in the kernel without adding a cell. `silent` runs
   * it without incrementing the execution count or adding to history.
   */
  executeCode(
    code: string,
    options?: IRunOptions & { silent?: boolean }
  ): Promise<IRunResult>;
  /**
   * Interrupt whatever the kernel is running; the runs this port started
   * that are still going end as `aborted`.
   */
  interrupt(options?: IInterruptOptions): Promise<void>;
  /**
   * The code cells whose run this port started and that have not ended
   * (e.g. after a soft timeout), in the order they started.
   */
  runningCells(): string[];
  /** Restart the kernel (all variables are lost). */
  restartKernel(): Promise<void>;
  /** The kernel's state now. */
  kernelState(): KernelState;
  /** List a directory, relative to the server root ('' is the root). */
  listFiles(path: string): Promise<IFileEntry[]>;
  /**
   * Read a text file, relative to the server root; a path with nothing
   * there throws a NoSuchFileError, a file over MAX_READ_BYTES (where a
   * link leads, not the link) a FileTooLargeError without downloading it.
   */
  readFile(path: string): Promise<string>;
  /**
   * Create or replace a text file, relative to the server root (missing
   * folders above it are created). Refused like `readFile` outside the
   * root, on a hidden path, or through a link to one.
   */
  writeFile(path: string, text: string): Promise<void>;
  /** Delete a file, relative to the server root (the undo of a file the agent created). */
  deleteFile(path: string): Promise<void>;
  /**
   * Start grouping cell changes: until `endUndoGroup`, every insert, edit
   * and delete is one undo step (one Undo restores the notebook as it was).
   * Ports without an undo history do nothing.
   */
  beginUndoGroup(): void;
  /** End the group started by `beginUndoGroup`. */
  endUndoGroup(): void;
}
