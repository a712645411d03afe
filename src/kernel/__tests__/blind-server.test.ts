/**
 * The kernel watch's "lost request" verdict against a real server that
 * never learns a kernel's execution state (tests/blind_kernel_manager.py):
 * it always says idle, as jupyter_server does for a while after a restart
 * when its own iopub socket reconnects late (seen in CI under load: a
 * `while True: pass` reported as "restarted by another client"). The
 * server's word alone must not end a run; the kernel, which answers no
 * kernel_info while it runs a cell, decides.
 */
import { join } from 'node:path';
import { JupyterServerProcess } from '../../headless/servers/jupyter-server';
import { ServerNotebookPort } from '../../headless/server-port/server-port';

jest.setTimeout(60000);

let server: JupyterServerProcess;
let port: ServerNotebookPort;

beforeAll(async () => {
  jest.spyOn(console, 'debug').mockImplementation(() => undefined);
  jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  server = await JupyterServerProcess.start({
    extraArgs: [
      '--ServerApp.kernel_manager_class=blind_kernel_manager.BlindKernelManager'
    ],
    env: {
      PYTHONPATH: [join(__dirname, '../../../tests'), process.env.PYTHONPATH]
        .filter(Boolean)
        .join(':')
    }
  });
  port = await ServerNotebookPort.open({
    serverSettings: server.serverSettings,
    path: 'blind.ipynb',
    createIfMissing: true
  });
});

afterAll(async () => {
  await port?.close({ shutdownKernel: true });
  await server?.dispose();
}, 30000);

it('the server says idle throughout, yet a quiet 7 s cell runs to its end', async () => {
  const { KernelAPI } = await import('@jupyterlab/services');
  const cell = await port.insertCell({
    type: 'code',
    source: 'import time\ntime.sleep(7)\nprint("slept")'
  });
  const run = port.runCell(cell.id, { softTimeoutMs: 30000 });
  // The premise: while the cell sleeps, the server reports the kernel idle.
  await new Promise(resolve => setTimeout(resolve, 3000));
  const kernels = await KernelAPI.listRunning(server.serverSettings);
  expect(kernels.map(kernel => kernel.execution_state)).toEqual(['idle']);
  const result = await run;
  expect(result.status).toBe('ok');
  expect(result.outputs).toEqual([
    { type: 'stream', name: 'stdout', text: 'slept\n' }
  ]);
});
