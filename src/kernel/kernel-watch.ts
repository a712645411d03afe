/**
 * Watching the kernel under one execution for going away: it died, it was
 * restarted (by this client, the user in another tab or a REST call), or
 * it is gone from the server. An execution whose kernel went away never
 * gets its reply, so without this watch it would wait until a timeout.
 *
 * What each sign means, as measured:
 * - the connection's status: `dead` / `autorestarting` for a crash (a crash
 *   the server restarts shows `restarting`, then `autorestarting` a
 *   microtask later), `restarting` alone for a restart this client asked
 *   for, `terminating` for a shutdown;
 * - the connection closing for good (`disconnected`);
 * - a `shutdown_reply` on iopub: a restart or shutdown through the REST
 *   API, which the server tells no client, but which the kernel broadcasts;
 * - a status message from another kernel session: every message carries
 *   the kernel's session id in its header, and a new kernel process has a
 *   new one (only status messages count: the server sends some messages of
 *   its own, e.g. "IOPub data rate exceeded", under its own session);
 * - the server, asked every POLL_MS while the execution runs: a kernel it
 *   no longer knows is gone; one it reports idle twice in a row while the
 *   connection is up, the request has no reply and no message of it came
 *   for POLL_MS may have lost the request (a restart by another client that
 *   no message told us about). The quiet matters: a browser may still be
 *   reading a flood of output the kernel finished sending seconds ago.
 *   The server's word is not enough: it reads statuses on an iopub socket of
 *   its own, which after a restart reconnects late under load and then
 *   misses the `busy` of the next request, so the server says idle while the
 *   kernel runs (seen in CI: a `while True: pass` reported as restarted).
 *   The kernel decides: it answers a kernel_info request only between
 *   executions (measured: ipykernel 7 answers none while a cell runs, sync
 *   or `await`), so an answer within PROBE_MS means the request is lost.
 */
import { KernelAPI, KernelMessage, type Kernel } from '@jupyterlab/services';
import { kernelInfoProbe } from './kernel-probes';

/** Why the kernel went away: a crash, a restart, or gone from the server. */
export type KernelGone = 'died' | 'restarted' | 'lost';

/** How long a new kernel session waits for the server's word that the kernel crashed. */
const SESSION_CHANGE_GRACE_MS = 1000;

/** How often the server is asked about the kernel while an execution runs. */
const POLL_MS = 2000;

/** How long an idle kernel gets to answer kernel_info before the watch asks again later. */
const PROBE_MS = 1500;

/** How long the idle status of an execution that just replied may lag the kernel's next answer. */
const LATE_IDLE_MS = 1000;

/** What the watch asks of the execution it watches for. */
export interface IWatchedRequest {
  /** True once the execution got its reply (then an idle kernel is no news). */
  finished(): boolean;
  /** Milliseconds since the last message of the request arrived (or it was sent). */
  quietMs(): number;
}

/**
 * Watch `kernel` until the returned function is called; `onGone` is called
 * at most once.
 */
export function watchKernel(
  kernel: Kernel.IKernelConnection,
  request: IWatchedRequest,
  onGone: (why: KernelGone) => void
): () => void {
  const finished = () => request.finished();
  const answersBetweenExecutions = kernelInfoProbe(kernel);
  let over = false;
  let session = '';
  let idlePolls = 0;
  const timers = new Set<ReturnType<typeof setTimeout>>();
  const later = (ms: number, action: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      action();
    }, ms);
    timers.add(timer);
  };
  const gone = (why: KernelGone) => {
    if (!over && !finished()) {
      stop();
      onGone(why);
    }
  };
  const onStatus = (_: unknown, status: Kernel.Status) => {
    if (status === 'dead' || status === 'autorestarting') {
      gone('died');
    } else if (status === 'terminating') {
      gone('lost');
    } else if (status === 'restarting') {
      // A crash shows `autorestarting` a microtask later: let it say so.
      later(0, () => gone('restarted'));
    }
  };
  const onConnection = (_: unknown, status: Kernel.ConnectionStatus) => {
    // 'connecting' is a reconnect (the kernel keeps running); this is final.
    // It may be the port itself closing (a live notebook's panel closes its
    // connection first): let the port say so before this counts as a death.
    if (status === 'disconnected') {
      later(0, () => gone('died'));
    }
  };
  const onIOPub = (_: unknown, msg: KernelMessage.IIOPubMessage) => {
    if ((msg.header.msg_type as string) === 'shutdown_reply') {
      const restart = (msg.content as { restart?: unknown }).restart === true;
      gone(restart ? 'restarted' : 'lost');
      return;
    }
    if (!KernelMessage.isStatusMsg(msg) || !msg.header.session) {
      return;
    }
    const state = msg.content.execution_state;
    if (state !== 'busy' && state !== 'idle' && state !== 'starting') {
      return;
    }
    if (session && msg.header.session !== session) {
      // A new kernel process. After a crash the server's `restarting` comes
      // too (maybe after the new kernel's first messages): give it a moment.
      later(SESSION_CHANGE_GRACE_MS, () => gone('restarted'));
    }
    session = msg.header.session;
  };
  const poll = async () => {
    const model = await KernelAPI.getKernelModel(
      kernel.id,
      kernel.serverSettings
    ).catch(() => null); // the server unreachable: no verdict
    if (over || finished()) {
      return;
    }
    if (model === undefined) {
      gone('lost');
      return;
    }
    const idle =
      model?.execution_state === 'idle' &&
      kernel.connectionStatus === 'connected' &&
      request.quietMs() >= POLL_MS;
    idlePolls = idle ? idlePolls + 1 : 0;
    if (idlePolls >= 2) {
      idlePolls = 0;
      if (await answersBetweenExecutions(PROBE_MS)) {
        // An execution that ends during the probe gets its reply just
        // before the kernel answers; its idle status comes on iopub and
        // may come after: it ends the run first if it comes at all.
        later(LATE_IDLE_MS, () => gone('restarted'));
        return;
      }
      if (over || finished()) {
        return;
      }
    }
    later(POLL_MS, () => void poll());
  };
  const stop = () => {
    if (over) {
      return;
    }
    over = true;
    timers.forEach(clearTimeout);
    timers.clear();
    kernel.statusChanged.disconnect(onStatus);
    kernel.connectionStatusChanged.disconnect(onConnection);
    kernel.iopubMessage.disconnect(onIOPub);
  };
  kernel.statusChanged.connect(onStatus);
  kernel.connectionStatusChanged.connect(onConnection);
  kernel.iopubMessage.connect(onIOPub);
  later(POLL_MS, () => void poll());
  return stop;
}
