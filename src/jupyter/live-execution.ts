/**
 * Watching one execution in a live kernel: soft timeout (partial output),
 * hard timeout (interrupt), the user's Stop (interrupt), and kernel death
 * (the kernel's status turns dead or restarting). Never waits forever.
 */
import type { Kernel } from '@jupyterlab/services';
import type {
  CellOutput,
  IRunOptions,
  IRunResult,
  RunStatus
} from '../agent/ports';

/** One execution in flight. */
export interface IFlight {
  cellId: string | null;
  startedAt: number;
  /** Resolves when the execution has finished (or was abandoned). */
  done: Promise<void>;
  finished: boolean;
  /** Set when something ended the execution abnormally. */
  forced: RunStatus | null;
  stdinRefused: boolean;
  outputs: () => CellOutput[];
  executionCount: () => number | null;
}

const DEATH: ReadonlySet<Kernel.Status> = new Set([
  'dead',
  'restarting',
  'autorestarting'
]);

/** Track `done`, and mark the flight dead if the kernel dies or restarts first. */
export function startFlight(
  kernel: Kernel.IKernelConnection,
  flight: Omit<
    IFlight,
    'done' | 'finished' | 'forced' | 'startedAt' | 'stdinRefused'
  >,
  done: Promise<unknown>
): IFlight {
  let onStatus: (_: unknown, status: Kernel.Status) => void = () => undefined;
  const died = new Promise<void>(resolve => {
    onStatus = (_sender, status) => {
      if (DEATH.has(status)) {
        result.forced = 'kernel-died';
        resolve();
      }
    };
    kernel.statusChanged.connect(onStatus);
  });
  const result: IFlight = {
    ...flight,
    startedAt: Date.now(),
    finished: false,
    forced: null,
    stdinRefused: false,
    done: Promise.race([
      done.then(
        () => undefined,
        () => undefined
      ),
      died
    ]).finally(() => {
      result.finished = true;
      kernel.statusChanged.disconnect(onStatus);
    })
  };
  return result;
}

/** Watch `flight` as `options` say; `interrupt` stops the kernel. */
export async function watchFlight(
  flight: IFlight,
  options: IRunOptions,
  interrupt: () => Promise<void>
): Promise<IRunResult> {
  const timers: Array<ReturnType<typeof setTimeout>> = [];
  const stop = (status: RunStatus) => {
    if (!flight.finished && !flight.forced) {
      flight.forced = status;
      void interrupt();
    }
  };
  const onAbort = () => stop('aborted');
  options.signal?.addEventListener('abort', onAbort);
  if (options.signal?.aborted) {
    onAbort();
  }
  try {
    if (options.hardTimeoutMs !== undefined) {
      const left = options.hardTimeoutMs - (Date.now() - flight.startedAt);
      timers.push(setTimeout(() => stop('timeout'), Math.max(0, left)));
    }
    const soft = new Promise<'soft'>(resolve => {
      if (options.softTimeoutMs !== undefined) {
        timers.push(setTimeout(() => resolve('soft'), options.softTimeoutMs));
      }
    });
    const outcome = await Promise.race([
      flight.done.then(() => 'done' as const),
      soft
    ]);
    const outputs = flight.outputs();
    let status: RunStatus;
    if (outcome === 'soft' && !flight.finished) {
      status = 'running';
    } else if (flight.forced) {
      status = flight.forced;
    } else {
      status = outputs.some(o => o.type === 'error') ? 'error' : 'ok';
    }
    return {
      cellId: flight.cellId,
      status,
      executionCount: flight.executionCount(),
      outputs,
      elapsedMs: Date.now() - flight.startedAt,
      // With stdin disabled, ipykernel raises this when the code calls input().
      stdinRefused:
        flight.stdinRefused ||
        outputs.some(
          o => o.type === 'error' && o.ename === 'StdinNotImplementedError'
        ) ||
        undefined
    };
  } finally {
    timers.forEach(clearTimeout);
    options.signal?.removeEventListener('abort', onAbort);
  }
}
