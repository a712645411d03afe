/**
 * Watching one execution in a live kernel: soft timeout (partial output),
 * hard timeout (interrupt), the user's Stop (interrupt), and kernel death
 * (the kernel's status turns dead or restarting, or its messages start to
 * come from another kernel process). Never waits forever.
 */
import {
  KernelAPI,
  type Kernel,
  type KernelMessage
} from '@jupyterlab/services';
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
  /** With `kernel-died`: the kernel was restarted rather than died, or is gone, when known. */
  kernelEvent?: 'restarted' | 'lost';
  stdinRefused: boolean;
  outputs: () => CellOutput[];
  executionCount: () => number | null;
}

/** How long a new kernel session waits for the server's word that the kernel crashed. */
const SESSION_CHANGE_GRACE_MS = 1000;

/** How often the server is asked about the kernel while an execution runs. */
const POLL_MS = 2000;

/**
 * Track `done`, and mark the flight dead if the kernel dies or restarts first.
 *
 * A restart by this client shows as the status `restarting`. A restart by
 * another client (another tab, a REST call) shows nothing of the kind here:
 * the server reconnects this websocket to the new kernel process, and the
 * request in flight simply never gets a reply. What does change is the
 * kernel's session id, in the header of every message it sends: a message
 * from a new session means a new kernel process. The new kernel may send
 * nothing this connection hears, so the server is asked too (every
 * POLL_MS): a kernel it reports idle twice in a row while our request has
 * no reply has lost the request; one it no longer knows is gone.
 */
export function startFlight(
  kernel: Kernel.IKernelConnection,
  flight: Omit<
    IFlight,
    'done' | 'finished' | 'forced' | 'startedAt' | 'stdinRefused'
  >,
  done: Promise<unknown>
): IFlight {
  let onStatus: (_: unknown, status: Kernel.Status) => void = () => undefined;
  let onIopub: (_: unknown, msg: KernelMessage.IIOPubMessage) => void = () =>
    undefined;
  let session = '';
  let ended = false;
  const timers: Array<ReturnType<typeof setTimeout>> = [];
  const died = new Promise<void>(resolve => {
    const end = (event: boolean | 'lost') => {
      if (ended) {
        return;
      }
      ended = true;
      result.forced = 'kernel-died';
      if (event) {
        result.kernelEvent = event === true ? 'restarted' : event;
      }
      resolve();
    };
    onStatus = (_sender, status) => {
      if (status === 'dead' || status === 'autorestarting') {
        end(false);
      } else if (status === 'restarting') {
        // A crash the server restarts shows `restarting`, then `autorestarting`
        // a microtask later; a restart this client asked for shows only the first.
        timers.push(setTimeout(() => end(true), 0));
      }
    };
    onIopub = (_sender, msg) => {
      const from = msg.header.session;
      if (!from) {
        return;
      }
      if (session && from !== session) {
        // A new kernel process. After a crash the server's `restarting` comes
        // too (maybe after the new kernel's first messages): give it a moment.
        timers.push(setTimeout(() => end(true), SESSION_CHANGE_GRACE_MS));
      }
      session = from;
    };
    kernel.statusChanged.connect(onStatus);
    kernel.iopubMessage.connect(onIopub);
    let idlePolls = 0;
    const poll = async () => {
      const model = await KernelAPI.getKernelModel(
        kernel.id,
        kernel.serverSettings
      ).catch(() => null); // the server unreachable: no verdict
      if (ended) {
        return;
      }
      if (model === undefined) {
        end('lost');
        return;
      }
      idlePolls = model?.execution_state === 'idle' ? idlePolls + 1 : 0;
      if (idlePolls >= 2) {
        end(true);
        return;
      }
      timers.push(setTimeout(() => void poll(), POLL_MS));
    };
    timers.push(setTimeout(() => void poll(), POLL_MS));
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
      ended = true;
      timers.forEach(clearTimeout);
      kernel.statusChanged.disconnect(onStatus);
      kernel.iopubMessage.disconnect(onIopub);
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
      ...(status === 'kernel-died' && flight.kernelEvent
        ? { kernelEvent: flight.kernelEvent }
        : {}),
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
