/**
 * Small bounded waits on a kernel connection: poll until a condition
 * holds, wait until a kernel answers, ask whether it is between
 * executions, nudge a kernel that shows no status, dispose a connection
 * safely. Every wait has a deadline.
 *
 * Why kernels need nudging: after a restart, a connection shows `starting`
 * or `unknown` until the kernel next publishes a status for a tracked
 * request, though the kernel is idle. In the browser, JupyterLab ignores
 * the statuses of "untracked" requests (kernel_info, completion, debug…;
 * the page config's `untracked_message_types`), so only an execution
 * moves it: measured in Chromium against JupyterLab 4.6, the status stayed
 * `unknown` for good after every restart. In Node the kernel_info request
 * the connection sends on reconnecting is sometimes never answered
 * (about one restart in five).
 */
import type { Kernel } from '@jupyterlab/services';

/** How often to resend kernel_info while a fresh connection shows no status. */
const PROBE_INTERVAL_MS = 1000;

/** How often to reconnect a connection that gave up while waiting for a kernel. */
const RECONNECT_INTERVAL_MS = 2000;

/** Resolve after `ms`. */
export function sleep(ms: number): Promise<void> {
  return new Promise(resolve => setTimeout(resolve, ms));
}

/**
 * Dispose a connection, even between two reconnect attempts: its pending
 * reconnect timer would otherwise fire on the disposed connection and
 * throw outside any promise (an uncaught exception ends a Node process).
 * The timer is a private field of KernelConnection; without it (another
 * version), disposing is as before.
 */
export function disposeSafely(kernel: Kernel.IKernelConnection): void {
  const timer = (kernel as unknown as { _reconnectTimeout?: unknown })
    ._reconnectTimeout;
  if (timer) {
    clearTimeout(timer as ReturnType<typeof setTimeout>);
  }
  kernel.dispose();
}

/**
 * Make `kernel` publish its status when it is connected but shows none
 * (neither idle nor busy), at most once per PROBE_INTERVAL_MS: an empty
 * silent execution (no output, no execution count, no history) is the one
 * request whose status every client tracks.
 */
export function nudgeIfSilent(kernel: Kernel.IKernelConnection): void {
  if (
    kernel.isDisposed ||
    kernel.connectionStatus !== 'connected' ||
    (kernel.status !== 'starting' && kernel.status !== 'unknown')
  ) {
    return;
  }
  const last = nudged.get(kernel) ?? 0;
  if (Date.now() - last > PROBE_INTERVAL_MS) {
    nudged.set(kernel, Date.now());
    try {
      const future = kernel.requestExecute({
        code: '',
        silent: true,
        store_history: false,
        allow_stdin: false,
        stop_on_error: false
      });
      future.done.catch(() => undefined);
    } catch {
      // The connection cannot send now: the next call tries again.
    }
  }
}

const nudged = new WeakMap<Kernel.IKernelConnection, number>();

/** Poll `predicate` until true or `deadline` (Date.now() ms); its value. */
export async function until(
  predicate: () => boolean,
  deadline: number
): Promise<boolean> {
  while (!predicate()) {
    if (Date.now() > deadline) {
      return false;
    }
    await sleep(25);
  }
  return true;
}

/**
 * Wait until `kernel` shows a live status (idle or busy), sending
 * kernel_info requests (which make the kernel publish its status) while
 * it shows none; our requests' cancellations are caught. A connection
 * that gave up (`disconnected`: its seven reconnect attempts, with backoff
 * up to a minute, all failed while the kernel was still starting on a
 * loaded machine; or a socket closed normally) is reconnected: it would
 * otherwise stay down until the deadline however soon the kernel is up.
 */
export async function whenAnswering(
  kernel: Kernel.IKernelConnection,
  deadline: number
): Promise<boolean> {
  let probed = Date.now();
  let reconnected = 0;
  return until(() => {
    if (kernel.isDisposed) {
      return true;
    }
    if (kernel.status === 'idle' || kernel.status === 'busy') {
      return true;
    }
    if (
      kernel.connectionStatus === 'disconnected' &&
      Date.now() - reconnected > RECONNECT_INTERVAL_MS
    ) {
      reconnected = Date.now();
      void kernel.reconnect().catch(() => undefined);
    }
    if (
      kernel.connectionStatus === 'connected' &&
      Date.now() - probed > PROBE_INTERVAL_MS
    ) {
      probed = Date.now();
      void kernel.requestKernelInfo().catch(() => undefined);
    }
    return false;
  }, deadline).then(ok => ok && !kernel.isDisposed);
}

/**
 * Asks `kernel` whether it is between executions: a kernel_info request
 * (ipykernel answers none while a cell runs), answered within `ms`, or no
 * verdict (busy, or slow under load). A request not answered yet is asked
 * about again, not sent again: a long quiet cell would otherwise queue one
 * request per call, all answered at once when the cell ends.
 */
export function kernelInfoProbe(
  kernel: Kernel.IKernelConnection
): (ms: number) => Promise<boolean> {
  let pending: Promise<boolean> | null = null;
  return async ms => {
    if (!pending) {
      const asked = kernel.requestKernelInfo().then(
        reply => reply !== undefined,
        () => false
      );
      pending = asked;
      void asked.then(() => {
        if (pending === asked) {
          pending = null;
        }
      });
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<false>(resolve => {
      timer = setTimeout(() => resolve(false), ms);
    });
    try {
      return await Promise.race([pending, timeout]);
    } finally {
      clearTimeout(timer);
    }
  };
}
