/**
 * The runs of a FakeNotebook: code "runs" by asking the test's executor
 * for its outputs, and is watched by the engine's own watch
 * (../watch-run.ts, the one the real ports' executions use): a soft timeout
 * returns `running` with the outputs so far (never while stopping), a hard
 * timeout or an abort interrupts, a run still going is refused, the last
 * run of each cell can be waited for after it ended.
 */
import { neverRun, stillRunning } from '../port-refusals';
import type { CellOutput, IRunOptions, IRunResult } from '../ports';
import { watchRun, type IWatchable } from '../watch-run';

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

/** One run of the fake kernel, as the watch sees an execution. */
class FakeFlight implements IWatchable {
  readonly controller = new AbortController();
  readonly started = Date.now();
  readonly result: IRunResult;
  finished = false;
  finishedAt: number | null = null;
  /** Set when the run is stopped (the first reason wins). */
  stopped: 'aborted' | 'timeout' | 'kernel-died' | null = null;
  done: Promise<void> = Promise.resolve();

  constructor(
    cellId: string | null,
    executionCount: number | null,
    /** Interrupts the fake kernel (which stops every run in flight). */
    private readonly _interrupt: () => void
  ) {
    this.result = { cellId, status: 'running', executionCount, outputs: [] };
  }

  get stopping(): boolean {
    return this.stopped !== null;
  }

  snapshot(): IRunResult {
    return {
      ...this.result,
      outputs: [...this.result.outputs],
      elapsedMs: (this.finishedAt ?? Date.now()) - this.started
    };
  }

  stop(reason: 'aborted' | 'timeout', interrupted: boolean): void {
    if (this.finished || this.stopping) {
      return;
    }
    this.stopped = reason;
    if (!interrupted) {
      this._interrupt();
    }
  }
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
  ): FakeFlight {
    if (cellId !== null && this._byCell.get(cellId)?.finished === false) {
      throw stillRunning(cellId);
    }
    const flight = new FakeFlight(cellId, executionCount, this._interrupt);
    const { controller, result } = flight;
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
        flight.finishedAt = Date.now();
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
  lastRun(cellId: string): FakeFlight {
    const flight = this._byCell.get(cellId);
    if (!flight) {
      throw neverRun(cellId);
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

  /** Watch `flight` as `options` say (the engine's watch). */
  watch(flight: FakeFlight, options: IRunOptions): Promise<IRunResult> {
    return watchRun(flight, options);
  }

  private readonly _inFlight = new Set<FakeFlight>();
  private readonly _byCell = new Map<string, FakeFlight>();
}
