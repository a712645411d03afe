/**
 * Another client of a kernel, for the port contract's harnesses: a
 * websocket of its own to the kernel, as a debugger panel, a resource
 * monitor or a second `notebook-agent` would open.
 */
import {
  KernelConnection,
  KernelMessage,
  type Kernel,
  type ServerConnection
} from '@jupyterlab/services';
import { disposeSafely, until } from '../kernel-probes';

/**
 * As another client, ask `kernel` for its info on the control channel,
 * which ipykernel answers at once on a thread of its own, a cell running
 * or not, with a busy and an idle that every client receives (the Jupyter
 * server asks the same way when a client connects to an idle kernel).
 * Resolves once the answer's idle has come back; rejects after `timeoutMs`.
 */
export async function askInfoOnControl(
  kernel: Pick<Kernel.IModel, 'id' | 'name'>,
  serverSettings: ServerConnection.ISettings,
  timeoutMs = 20000
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const other = new KernelConnection({
    model: { id: kernel.id, name: kernel.name },
    serverSettings
  });
  let bound: ReturnType<typeof setTimeout> | undefined;
  try {
    if (
      !(await until(() => other.connectionStatus === 'connected', deadline))
    ) {
      throw new Error(
        `another client could not connect to kernel ${kernel.id} within ${timeoutMs} ms`
      );
    }
    // The protocol allows kernel_info on the control channel (the Jupyter
    // server sends it there); @jupyterlab/services types it as shell only.
    const request = KernelMessage.createMessage<KernelMessage.IInfoRequestMsg>({
      msgType: 'kernel_info_request',
      channel: 'shell',
      session: other.clientId,
      content: {}
    });
    request.channel = 'control' as typeof request.channel;
    const future = other.sendControlMessage(
      request as unknown as KernelMessage.IControlMessage,
      true
    );
    await Promise.race([
      future.done,
      new Promise((_, reject) => {
        bound = setTimeout(
          () =>
            reject(
              new Error(
                `kernel ${kernel.id} did not answer kernel_info on the control channel within ${timeoutMs} ms`
              )
            ),
          Math.max(0, deadline - Date.now())
        );
      })
    ]);
  } finally {
    clearTimeout(bound);
    disposeSafely(other);
  }
}
