/**
 * The server-side session that ties a notebook path to its kernel, through
 * the sessions REST API only: the port keeps its own kernel connection
 * (./kernel-link.ts), so no SessionConnection, and no manager polling the
 * server in the background.
 */
import { SessionAPI, type Kernel } from '@jupyterlab/services';
import type { ServerConnection } from '@jupyterlab/services';
import type { INotebookDocument } from './notebook-file';

/** A session on the server and its kernel. */
export interface IKernelSession {
  /** The kernel the session runs. */
  kernel: Kernel.IModel;
  /** True when this process started the session (rather than joining one). */
  started: boolean;
  /** Shut the session and its kernel down. */
  shutdown(): Promise<void>;
  /**
   * Give the session a new kernel of the same kind (when the server gave up
   * restarting the old one); updates `kernel`.
   */
  replaceKernel(): Promise<Kernel.IModel>;
}

/**
 * Join the session the server already has for the notebook's path, or
 * start one with `kernelName`, else the notebook's kernelspec, else python3.
 */
export async function openKernelSession(
  options: {
    serverSettings: ServerConnection.ISettings;
    path: string;
    kernelName?: string;
  },
  doc: INotebookDocument
): Promise<IKernelSession> {
  const { serverSettings, path } = options;
  const client = new SessionAPI.SessionAPIClient({ serverSettings });
  const running = await client.listRunning();
  let model = running.find(session => session.path === path && session.kernel);
  const started = !model;
  if (!model) {
    const spec = doc.metadata.kernelspec as { name?: unknown } | undefined;
    const name =
      options.kernelName ??
      (typeof spec?.name === 'string' ? spec.name : 'python3');
    model = await client.startNew({
      path,
      name: path.split('/').pop() ?? path,
      type: 'notebook',
      kernel: { name }
    });
  }
  const { id, kernel } = model;
  if (!kernel) {
    throw new Error(`The server started no kernel for ${path}.`);
  }
  const session: IKernelSession = {
    kernel,
    started,
    shutdown: () => client.shutdown(id),
    async replaceKernel() {
      // The server removes the session of a kernel that died for good:
      // start a new session (and kernel) for the same notebook.
      const fresh = await client.startNew({
        path,
        name: path.split('/').pop() ?? path,
        type: 'notebook',
        kernel: { name: session.kernel.name }
      });
      if (!fresh.kernel) {
        throw new Error(`The server started no kernel for ${path}.`);
      }
      const freshId = fresh.id;
      session.kernel = fresh.kernel;
      session.started = true;
      session.shutdown = () => client.shutdown(freshId);
      return fresh.kernel;
    }
  };
  return session;
}
