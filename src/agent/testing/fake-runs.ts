/**
 * The runs of a FakeNotebook: code "runs" by asking the test's executor
 * for its outputs, watched with the same rules as the real ports' engine
 * (src/kernel/): a soft timeout returns `running` with the outputs so far,
 * a hard timeout or an abort interrupts, a run still going is refused, the
 * last run of each cell can be waited for after it ended.
 */
import {
  NotebookPortError,
  type CellOutput,
  type IRunOptions,
  type IRunResult
} from '../ports';

/**
 * Decides what running some code outputs: what it returns comes after
 * what it `emit`s while it runs (partial output). It may be slow, and
 * should stop (throw or return) when `signal` aborts.
 */
export type FakeExecutor = (
  source: string,
  signal: AbortSignal,
  emit: (output: CellOutput) => void
) => Promise<CellOutput[]> | CellOutput[];

interface IFlight {
  done: Promise<void>;
  controller: AbortController;
  started: number;
  result: IRunResult;
  finished: boolean;
  /** Set when the watch stopped it (the first reason wins). */
  stopped: 'aborted' | 'timeout' | 'kernel-died' | null;
}

/** The fake kernel's runs. */
export class FakeRuns {
  constructor(
    private readonly _execute: FakeExecutor,
    /** Called by watches that stop a run (counted as the kernel's interrupts). */
    private readonly _interrupt: () => void,
    private readonly _onBusy: (busy: boolean) => void
  ) {}

  /** Start running `source`; `store` sees the outputs whenever they change. */
  start(
    cellId: string | null,
    source: string,
    executionCount: number | null,
    store: (outputs: CellOutput[]) => void
  ): IFlight {
    if (cellId !== null && this._byCell.get(cellId)?.finished === false) {
      throw new NotebookPortError(
        `Cell ${cellId} is still running. Call wait to keep watching it, ` +
          'or interrupt_kernel to stop it, before running it again.'
      );
    }
    const controller = new AbortController();
    const result: IRunResult = {
      cellId,
      status: 'running',
      executionCount,
      outputs: []
    };
    const flight: IFlight = {
      controller,
      started: Date.now(),
      result,
      finished: false,
      stopped: null,
      done: Promise.resolve()
    };
    const emit = (output: CellOutput) => {
      if (!flight.finished) {
        result.outputs = [...result.outputs, output];
        store(result.outputs);
      }
    };
    this._onBusy(true);
    flight.done = (async () => {
      try {
        const returned = await this._execute(source, controller.signal, emit);
        result.outputs = [...result.outputs, ...returned];
      } catch (error) {
        if (!controller.signal.aborted) {
          throw error;
        }
      } finally {
        flight.finished = true;
        result.status =
          flight.stopped ??
          (result.outputs.some(o => o.type === 'error') ? 'error' : 'ok');
        if (
          result.outputs.some(
            o => o.type === 'error' && o.ename === 'StdinNotImplementedError'
          )
        ) {
          result.stdinRefused = true;
        }
        store(result.outputs);
        this._inFlight.delete(flight);
        this._onBusy(this._inFlight.size > 0);
      }
    })();
    this._inFlight.add(flight);
    if (cellId !== null) {
      this._byCell.set(cellId, flight);
    }
    return flight;
  }

  /** The last run of `cellId`; refuses one the fake never ran. */
  lastRun(cellId: string): IFlight {
    const flight = this._byCell.get(cellId);
    if (!flight) {
      throw new NotebookPortError(
        `Cell ${cellId} has not been run by the agent, so there is nothing ` +
          'to wait for. Call run_cell to run it.'
      );
    }
    return flight;
  }

  /** Cells whose run has not ended. */
  runningCells(): string[] {
    return [...this._inFlight]
      .map(flight => flight.result.cellId)
      .filter((id): id is string => id !== null);
  }

  /** Stop every run in flight (as `reason`, unless already stopped). */
  stopAll(reason: 'aborted' | 'kernel-died'): void {
    for (const flight of this._inFlight) {
      flight.stopped ??= reason;
      flight.controller.abort();
    }
  }

  /** Resolves when every run in flight now has ended. */
  async settled(): Promise<void> {
    await Promise.all([...this._inFlight].map(flight => flight.done));
  }

  /** Watch `flight` as `options` say. */
  async watch(flight: IFlight, options: IRunOptions): Promise<IRunResult> {
    const { signal, softTimeoutMs, hardTimeoutMs } = options;
    const timers: Array<ReturnType<typeof setTimeout>> = [];
    const stop = (reason: 'aborted' | 'timeout') => {
      if (!flight.finished) {
        flight.stopped ??= reason;
        this._interrupt();
      }
    };
    const onAbort = () => stop('aborted');
    signal?.addEventListener('abort', onAbort);
    if (signal?.aborted) {
      onAbort();
    }
    try {
      const soft = new Promise<'soft'>(resolve => {
        if (softTimeoutMs !== undefined) {
          timers.push(setTimeout(() => resolve('soft'), softTimeoutMs));
        }
      });
      if (hardTimeoutMs !== undefined) {
        const left = hardTimeoutMs - (Date.now() - flight.started);
        timers.push(setTimeout(() => stop('timeout'), Math.max(0, left)));
      }
      const outcome = await Promise.race([
        flight.done.then(() => 'done' as const),
        soft
      ]);
      const result = { ...flight.result, outputs: [...flight.result.outputs] };
      result.elapsedMs = Date.now() - flight.started;
      if (outcome === 'soft' && !flight.finished) {
        result.status = 'running';
      }
      return result;
    } finally {
      timers.forEach(clearTimeout);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  private readonly _inFlight = new Set<IFlight>();
  private readonly _byCell = new Map<string, IFlight>();
}
