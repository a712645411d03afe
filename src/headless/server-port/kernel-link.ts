/**
 * A healthy connection to one kernel (by id) across restarts.
 *
 * Why not simply keep one KernelConnection: after an (auto)restart it
 * reconnects within milliseconds, while the new kernel is still starting,
 * and the kernel_info request it sends then is sometimes never answered
 * (measured: about one restart in five here). Its status then stays
 * 'unknown', and when the kernel restarts again, @jupyterlab/services
 * cancels that pending request in a promise nobody catches: an unhandled
 * rejection, which ends a Node process. Disposing the connection cancels
 * it harmlessly, but only once its own reconnect is over (disposing during
 * the reconnect rejects another uncaught promise). So after a restart this
 * link waits for the old connection to reconnect, checks that the kernel
 * answers, then replaces the connection with a fresh one.
 *
 * When the socket drops (the connection says 'connecting'), the link asks
 * the server over REST whether the kernel still exists: a 404 (the Jupyter
 * server restarted, or someone shut the kernel down) or a server that stays
 * unreachable means the kernel is lost, and the port is told at once,
 * rather than after minutes of reconnect attempts with running cells
 * reported as still running.
 */
import {
  KernelAPI,
  KernelConnection,
  type Kernel,
  type ServerConnection
} from '@jupyterlab/services';
import type { KernelState } from '../../agent/ports';
import { skipShutdownWait } from '../../kernel/no-wait-restart';
import { toKernelState } from '../../kernel/kernel-state';
import { TrackedStatus } from '../../kernel/tracked-status';
import {
  disposeSafely,
  sleep,
  until,
  whenAnswering
} from '../../kernel/kernel-probes';

/** How long to wait for a restarted kernel before calling it dead. */
const RECOVER_TIMEOUT_MS = 60000;
/** How long the server may report the kernel dead before we believe it. */
const DEAD_GRACE_MS = 15000;
/** How long the server may stay unreachable before the kernel counts as lost. */
const UNREACHABLE_GRACE_MS = 10000;
/** How often to ask the server about the kernel while the socket reconnects. */
const CHECK_INTERVAL_MS = 500;

/** The connection to one kernel, renewed after each restart. */
export class KernelLink {
  /**
   * Connect to the kernel `model` and wait until it answers; rejects when
   * it does not within `timeoutMs`.
   */
  static async connect(
    serverSettings: ServerConnection.ISettings,
    model: Kernel.IModel,
    timeoutMs = RECOVER_TIMEOUT_MS,
    onLost?: () => void
  ): Promise<KernelLink> {
    const link = new KernelLink(serverSettings, model, onLost);
    const kernel = link._newConnection();
    link._kernel = kernel;
    const started = Date.now();
    if (!(await whenAnswering(kernel, started + timeoutMs))) {
      // A connection disposed early means the server reported the kernel
      // dead or gone (shut down elsewhere, culled): not a timeout.
      const died = kernel.isDisposed;
      const waited = Date.now() - started;
      link.dispose();
      throw new Error(
        died
          ? `kernel ${model.id} stopped while starting (the server reported it dead or gone after ${waited} ms): start it again, or look at the Jupyter server's log`
          : `kernel ${model.id} did not answer within ${timeoutMs} ms`
      );
    }
    return link;
  }

  private constructor(
    private readonly _settings: ServerConnection.ISettings,
    private readonly _model: Kernel.IModel,
    private readonly _onLost?: () => void
  ) {}

  /** True when the kernel is gone from the server (not merely dead for a moment). */
  get lost(): boolean {
    return this._lost;
  }

  /** The current connection; null while recovering or once the kernel is gone. */
  get kernel(): Kernel.IKernelConnection | null {
    return this._recovering || this._gone ? null : this._kernel;
  }

  /** The kernel's state as the agent sees it. */
  get state(): KernelState {
    if (this._gone) {
      return 'dead';
    }
    if (this._recovering || !this._kernel) {
      return 'restarting';
    }
    const tracked = this._tracked.get(this._kernel);
    return toKernelState(tracked ? tracked.status : this._kernel.status);
  }

  /** Resolves when no recovery is under way (at once when none is). */
  async settled(): Promise<void> {
    await this._recovering;
  }

  /** Interrupt the kernel (REST, so it works while the socket reconnects). */
  async interrupt(): Promise<void> {
    await KernelAPI.interruptKernel(this._model.id, this._settings);
  }

  /**
   * Restart the kernel and connect to it afresh; also brings back a kernel
   * the server gave up restarting (after too many deaths in a row).
   * `noWait`: kill it at once (../kernel/no-wait-restart.ts).
   */
  async restart(noWait = false): Promise<void> {
    await this._recovering;
    this._gone = false;
    this._lost = false;
    await this._recover(async () => {
      // Closing the connection first ends the executions watching it.
      this._drop(this._kernel);
      this._kernel = null;
      if (noWait) {
        await skipShutdownWait(this._model.id, this._settings);
      }
      await KernelAPI.restartKernel(this._model.id, this._settings);
    });
  }

  /** Close the connection (the kernel keeps running). */
  dispose(): void {
    this._disposed = true;
    this._drop(this._kernel);
    this._kernel = null;
  }

  private _newConnection(): Kernel.IKernelConnection {
    const kernel = new KernelConnection({
      model: this._model,
      serverSettings: this._settings
    });
    kernel.statusChanged.connect(this._onStatus, this);
    kernel.connectionStatusChanged.connect(this._onConnection, this);
    this._tracked.set(kernel, new TrackedStatus(kernel));
    return kernel;
  }

  private _onStatus(
    sender: Kernel.IKernelConnection,
    status: Kernel.Status
  ): void {
    if (sender !== this._kernel) {
      return; // an old connection, on its way out
    }
    // 'dead' is not final: the connection says so (and disposes itself)
    // when the server reports the kernel dead, which it briefly does
    // during an autorestart. The recovery asks the server what is left.
    if (
      status === 'restarting' ||
      status === 'autorestarting' ||
      status === 'dead'
    ) {
      void this._recover();
    }
  }

  private _onConnection(
    sender: Kernel.IKernelConnection,
    status: Kernel.ConnectionStatus
  ): void {
    if (sender !== this._kernel) {
      return; // an old connection, on its way out
    }
    if (status === 'disconnected' && !this._disposed && !this._gone) {
      void this._recover();
    } else if (status === 'connecting' && !this._recovering) {
      void this._checkStillThere(sender);
    }
  }

  /**
   * The socket dropped: while it reconnects, ask the server whether the
   * kernel still exists. Gone (404), or the server unreachable for too
   * long: the kernel is lost.
   */
  private async _checkStillThere(
    kernel: Kernel.IKernelConnection
  ): Promise<void> {
    if (this._checking) {
      return;
    }
    this._checking = true;
    const since = Date.now();
    try {
      while (
        kernel === this._kernel &&
        kernel.connectionStatus === 'connecting' &&
        !this._recovering &&
        !this._disposed &&
        !this._gone
      ) {
        let there: boolean | null;
        try {
          there = !!(await KernelAPI.getKernelModel(
            this._model.id,
            this._settings
          ));
        } catch {
          there = null; // the server does not answer (yet)
        }
        if (kernel !== this._kernel || this._disposed || this._gone) {
          return;
        }
        if (
          there === false ||
          (there === null && Date.now() - since > UNREACHABLE_GRACE_MS)
        ) {
          this._lose();
          return;
        }
        await sleep(CHECK_INTERVAL_MS);
      }
    } finally {
      this._checking = false;
    }
  }

  /** The kernel is gone: say so, then let go of the connection. */
  private _lose(): void {
    this._gone = true;
    this._lost = true;
    const kernel = this._kernel;
    this._kernel = null;
    this._onLost?.();
    this._drop(kernel);
  }

  /**
   * Recover from a restart (running `action` first, if given): one at a
   * time, every wait bounded.
   */
  private _recover(action?: () => Promise<void>): Promise<void> {
    if (this._recovering || this._disposed || this._gone) {
      return this._recovering ?? Promise.resolve();
    }
    let done: () => void = () => undefined;
    this._recovering = new Promise<void>(resolve => {
      done = resolve;
    });
    const old = this._kernel;
    void (async () => {
      const deadline = Date.now() + RECOVER_TIMEOUT_MS;
      try {
        await action?.();
      } catch {
        // The restart request failed; the checks below tell what is left.
      }
      try {
        if (old && !old.isDisposed) {
          // Let the old connection finish reconnecting, and check that the
          // restarted kernel answers, before replacing the connection.
          await until(() => old.connectionStatus !== 'connecting', deadline);
          if (old.connectionStatus === 'connected') {
            await whenAnswering(old, deadline);
          }
        }
        this._gone = !(await this._serverHasKernel(deadline));
        if (this._disposed || this._gone) {
          return;
        }
        this._drop(old);
        this._kernel = this._newConnection();
        await whenAnswering(this._kernel, deadline);
      } finally {
        this._recovering = null;
        done();
      }
    })();
    return this._recovering;
  }

  /**
   * Whether the server still has the kernel, waiting (bounded) while it
   * reports it dead, as it does for a moment during an autorestart.
   */
  private async _serverHasKernel(deadline: number): Promise<boolean> {
    const limit = Math.min(deadline, Date.now() + DEAD_GRACE_MS);
    for (;;) {
      let model: Kernel.IModel | undefined | null;
      try {
        model = await KernelAPI.getKernelModel(this._model.id, this._settings);
      } catch {
        model = null; // Network trouble: ask again until the limit.
      }
      if (model && model.execution_state !== 'dead') {
        return true;
      }
      if (model === undefined) {
        // Not network trouble: getKernelModel answers undefined for a 404,
        // so the server has no such kernel (it restarted, or the kernel was
        // shut down). Waiting will not bring it back.
        return false;
      }
      if (Date.now() > limit || this._disposed) {
        return false;
      }
      await sleep(200);
    }
  }

  private _drop(kernel: Kernel.IKernelConnection | null): void {
    if (kernel && !kernel.isDisposed) {
      kernel.statusChanged.disconnect(this._onStatus, this);
      kernel.connectionStatusChanged.disconnect(this._onConnection, this);
      disposeSafely(kernel);
    }
  }

  private _kernel: Kernel.IKernelConnection | null = null;
  /** Busy and idle from the statuses of tracked requests (../../kernel/tracked-status.ts). */
  private readonly _tracked = new WeakMap<
    Kernel.IKernelConnection,
    TrackedStatus
  >();
  private _recovering: Promise<void> | null = null;
  private _gone = false;
  private _lost = false;
  private _checking = false;
  private _disposed = false;
}
