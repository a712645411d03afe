/**
 * Let the next restart of a kernel stuck in code that ignores SIGINT kill
 * it at once: used after the user's Stop went unanswered for the grace
 * period, and for any restart of a busy kernel (the agent's restart_kernel
 * after "did not stop when interrupted"), by both ports, just before their
 * usual restart. A busy kernel cannot agree to shut down until its code
 * returns, so the graceful restart would end in SIGTERM anyway, later.
 *
 * Their restart is the graceful one of the REST API (the live port through
 * the kernel connection, as JupyterLab's Restart Kernel: it clears the
 * connection's state and the cells' pending runs), and that waits for a
 * kernel that cannot answer: jupyter_client sends SIGTERM only after half of
 * `shutdown_wait_time` (5 s by default). The server extension's
 * `notebook-agent/kernels/<id>/no-wait-restart` shortens that wait for this
 * kernel's next restart only (jupyterlab_notebook_agent/kernel_restart.py).
 */
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';

/**
 * Ask the server to make kernel `kernelId`'s next restart brief; false when
 * it could not (an older server extension, a kernel on a gateway), and the
 * restart is the graceful one, which works too.
 */
export async function skipShutdownWait(
  kernelId: string,
  settings: ServerConnection.ISettings
): Promise<boolean> {
  const url = URLExt.join(
    settings.baseUrl,
    'notebook-agent',
    'kernels',
    encodeURIComponent(kernelId),
    'no-wait-restart'
  );
  try {
    const response = await ServerConnection.makeRequest(
      url,
      { method: 'POST' },
      settings
    );
    const body = (await response.json().catch(() => ({}))) as {
      no_wait?: boolean;
    };
    return response.ok && body.no_wait === true;
  } catch {
    return false;
  }
}
