/**
 * A kernel connection's status as the agent sees it: one mapping for every
 * port, so the same kernel reads the same in the browser and in Node.
 */
import type { Kernel } from '@jupyterlab/services';
import type { KernelState } from '../agent/ports';

/**
 * The agent's kernel state for a connection's status. `autorestarting` is
 * a restart; `terminating` is a kernel being shut down, which will run
 * nothing more (so `dead`); a status the connection does not know (its
 * socket is down) is `unknown`.
 */
export function toKernelState(status: Kernel.Status): KernelState {
  switch (status) {
    case 'idle':
    case 'busy':
    case 'starting':
    case 'restarting':
    case 'dead':
      return status;
    case 'autorestarting':
      return 'restarting';
    case 'terminating':
      return 'dead';
    // And a status a later JupyterLab adds.
    case 'unknown':
    default:
      return 'unknown';
  }
}

/** True for the statuses after which the kernel runs nothing it was sent before. */
export function isGoneStatus(status: Kernel.Status): boolean {
  return (
    status === 'dead' ||
    status === 'restarting' ||
    status === 'autorestarting' ||
    status === 'terminating'
  );
}
