/**
 * whenAnswering, the wait for a kernel's first answer, on a stand-in
 * connection whose states are set by hand: a connection that gave up
 * (services' KernelConnection ends in `disconnected` after seven failed
 * reconnect attempts, as while a kernel starts on a loaded machine) must be
 * reconnected, or the wait runs to its deadline however soon the kernel is up.
 */
import type { Kernel } from '@jupyterlab/services';
import { whenAnswering } from '../kernel-probes';

/** Just what whenAnswering reads and calls. */
class GaveUpConnection {
  isDisposed = false;
  status: Kernel.Status = 'unknown';
  connectionStatus: Kernel.ConnectionStatus = 'disconnected';
  reconnects = 0;

  /** The kernel is up by now: the new socket connects and the kernel says idle. */
  async reconnect(): Promise<void> {
    this.reconnects += 1;
    this.connectionStatus = 'connected';
    this.status = 'idle';
  }

  async requestKernelInfo(): Promise<undefined> {
    return undefined;
  }
}

it('reconnects a connection that gave up, and sees the kernel answer', async () => {
  const connection = new GaveUpConnection();
  const started = Date.now();
  const answered = await whenAnswering(
    connection as unknown as Kernel.IKernelConnection,
    Date.now() + 5000
  );
  expect(answered).toBe(true);
  expect(connection.reconnects).toBe(1);
  expect(Date.now() - started).toBeLessThan(4000);
});

it('keeps reconnecting, a few seconds apart, while the kernel is not up', async () => {
  const connection = new GaveUpConnection();
  connection.reconnect = async () => {
    connection.reconnects += 1;
    throw new Error('Kernel connection disconnected');
  };
  const answered = await whenAnswering(
    connection as unknown as Kernel.IKernelConnection,
    Date.now() + 4500
  );
  expect(answered).toBe(false);
  expect(connection.reconnects).toBeGreaterThanOrEqual(2);
  expect(connection.reconnects).toBeLessThanOrEqual(3);
});
