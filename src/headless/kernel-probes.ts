/**
 * Small bounded waits on a kernel connection, for KernelLink: poll until a
 * condition holds, wait until a kernel answers, dispose a connection
 * safely. Every wait has a deadline.
 */
import type { Kernel } from '@jupyterlab/services';

/** How often to resend kernel_info while a fresh connection shows no status. */
const PROBE_INTERVAL_MS = 1000;

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
 * it shows none; our requests' cancellations are caught.
 */
export async function whenAnswering(
  kernel: Kernel.IKernelConnection,
  deadline: number
): Promise<boolean> {
  let probed = Date.now();
  return until(() => {
    if (kernel.isDisposed) {
      return true;
    }
    if (kernel.status === 'idle' || kernel.status === 'busy') {
      return true;
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
