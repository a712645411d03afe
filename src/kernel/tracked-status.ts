/**
 * A kernel's busy and idle as its executions make them, for a connection
 * made in Node.
 *
 * Why: a kernel publishes busy and idle around every request it handles,
 * every client's, on its control channel too, which ipykernel serves on a
 * thread of its own while the main thread runs a cell. Each time a client
 * connects, the Jupyter server asks the kernel for its info on the shell
 * and the control channel (and asks again every half second until it
 * hears back): the control channel answers at once, with an `idle` that
 * reaches every client. A KernelConnection takes its status from any
 * status message except those of the request types in the page config's
 * `untracked_message_types`, which in the browser the Jupyter server fills
 * (jupyter_server's KernelManager.untracked_message_types) and in Node is
 * empty. So in Node a kernel busy in a cell read `idle` once another client
 * connected, or when a late answer to the server's own asking came after
 * the cell started (CI, under load: a cell that ignores SIGINT, still
 * running, read `idle`).
 */
import type { Kernel, KernelMessage } from '@jupyterlab/services';

/**
 * The request types whose statuses say nothing about the user's code (the
 * requests of jupyter_server's default `untracked_message_types`).
 */
const UNTRACKED_REQUESTS: ReadonlySet<string> = new Set([
  'comm_info_request',
  'kernel_info_request',
  'shutdown_request',
  'interrupt_request',
  'debug_request'
]);

/** Busy and idle of one connection, from the statuses of tracked requests. */
export class TrackedStatus {
  constructor(private readonly _kernel: Kernel.IKernelConnection) {
    _kernel.iopubMessage.connect(this._onIOPub, this);
  }

  /**
   * The connection's status, except that busy and idle are those of the
   * last tracked request (the connection's own until there is one).
   */
  get status(): Kernel.Status {
    const status = this._kernel.status;
    if ((status === 'idle' || status === 'busy') && this._last) {
      return this._last;
    }
    return status;
  }

  private _onIOPub(
    _: Kernel.IKernelConnection,
    msg: KernelMessage.IIOPubMessage
  ): void {
    if (msg.header.msg_type !== 'status') {
      return;
    }
    const state = (msg as KernelMessage.IStatusMsg).content.execution_state;
    if (state !== 'idle' && state !== 'busy') {
      this._last = null; // starting, restarting: a new kernel process
      return;
    }
    const parent = (msg.parent_header as Partial<KernelMessage.IHeader>)
      ?.msg_type;
    if (parent && UNTRACKED_REQUESTS.has(parent)) {
      return;
    }
    this._last = state;
  }

  private _last: 'idle' | 'busy' | null = null;
}
