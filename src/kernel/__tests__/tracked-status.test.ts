/**
 * TrackedStatus on its own: which statuses move busy and idle. (The port
 * contract's case "another client asks the kernel for its info while a
 * cell runs" checks the same against a real kernel, on every port.)
 */
import type { Kernel, KernelMessage } from '@jupyterlab/services';
import { Signal } from '@lumino/signaling';
import { TrackedStatus } from '../tracked-status';

/** The two members TrackedStatus reads, driven by hand. */
class Connection {
  status: Kernel.Status = 'idle';
  readonly iopubMessage = new Signal<this, KernelMessage.IIOPubMessage>(this);

  /** A status message, as the connection takes it (its own status too). */
  publish(state: Kernel.Status, parent?: string): void {
    this.status = state;
    this.iopubMessage.emit({
      header: { msg_type: 'status' },
      parent_header: parent ? { msg_type: parent } : {},
      content: { execution_state: state }
    } as unknown as KernelMessage.IIOPubMessage);
  }
}

function tracked(): [Connection, TrackedStatus] {
  const connection = new Connection();
  return [
    connection,
    new TrackedStatus(connection as unknown as Kernel.IKernelConnection)
  ];
}

describe('TrackedStatus', () => {
  it('follows an execution: busy, then idle', () => {
    const [connection, status] = tracked();
    connection.publish('busy', 'execute_request');
    expect(status.status).toBe('busy');
    connection.publish('idle', 'execute_request');
    expect(status.status).toBe('idle');
  });

  it.each([
    'kernel_info_request',
    'comm_info_request',
    'debug_request',
    'interrupt_request',
    'shutdown_request'
  ])('keeps busy through the statuses of a %s mid-cell', parent => {
    const [connection, status] = tracked();
    connection.publish('busy', 'execute_request');
    connection.publish('busy', parent);
    connection.publish('idle', parent);
    expect(connection.status).toBe('idle'); // what the connection alone says
    expect(status.status).toBe('busy');
  });

  it('keeps idle through the statuses of a kernel_info between cells', () => {
    const [connection, status] = tracked();
    connection.publish('busy', 'execute_request');
    connection.publish('idle', 'execute_request');
    connection.publish('busy', 'kernel_info_request');
    expect(status.status).toBe('idle');
  });

  it('is the connection’s own status until a tracked request, and after a restart', () => {
    const [connection, status] = tracked();
    connection.publish('busy', 'kernel_info_request');
    expect(status.status).toBe('busy');
    connection.publish('idle', 'kernel_info_request');
    expect(status.status).toBe('idle');
    connection.publish('busy', 'execute_request');
    connection.publish('restarting');
    expect(status.status).toBe('restarting');
    connection.publish('starting');
    connection.publish('idle', 'kernel_info_request');
    expect(status.status).toBe('idle');
  });

  it('says what the connection says when it is not busy or idle', () => {
    const [connection, status] = tracked();
    connection.publish('busy', 'execute_request');
    connection.status = 'dead'; // the server reported it dead
    expect(status.status).toBe('dead');
  });
});
