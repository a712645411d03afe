/**
 * The port contract (src/agent/testing/port-contract/) on the headless
 * ServerNotebookPort: a private Jupyter server and a real ipykernel per
 * notebook. No IOPub rate limit, as in the fault suite: a flood must reach
 * the port, whose own bounds are under test.
 */
import { ContentsManager, KernelAPI } from '@jupyterlab/services';
import type { INotebookPort } from '../../agent/ports';
import { describePortContract } from '../../agent/__tests__/port-contract-suite';
import type {
  IPortHarness,
  IUserCell
} from '../../agent/testing/port-contract/contract';
import { askInfoOnControl } from '../../kernel/testing/another-client';
import { JupyterServerProcess } from '../servers/jupyter-server';
import { ServerNotebookPort } from '../server-port/server-port';

/** The server's wait for a kernel to agree to shut down (its default is 5). */
const STUCK_SHUTDOWN_WAIT_S = 40;

let server: JupyterServerProcess | null = null;
let contents: ContentsManager | null = null;
let opened = 0;

afterAll(async () => {
  contents?.dispose();
  await server?.dispose();
}, 30000);

async function harness(): Promise<IPortHarness> {
  // @jupyterlab/services logs every kernel status and reconnect.
  jest.spyOn(console, 'debug').mockImplementation(() => undefined);
  jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  server = await JupyterServerProcess.start({
    extraArgs: [
      '--ZMQChannelsWebsocketConnection.iopub_data_rate_limit=0',
      // A graceful restart of a kernel stuck in code that ignores SIGINT
      // sends SIGTERM after half of this (20 s): neither the user's Stop
      // nor the agent's restart of a busy kernel (both bounded by 15 s) may
      // wait for it.
      `--KernelManager.shutdown_wait_time=${STUCK_SHUTDOWN_WAIT_S}`
    ]
  });
  const settings = server.serverSettings;
  contents = new ContentsManager({ serverSettings: settings });
  const files = contents;
  return {
    name: 'ServerNotebookPort',
    notApplicable: {},
    async open(cells: IUserCell[] = []): Promise<INotebookPort> {
      opened += 1;
      const path = `contract-${opened}.ipynb`;
      await files.save(path, {
        type: 'notebook',
        format: 'json',
        content: {
          nbformat: 4,
          nbformat_minor: 5,
          metadata: {
            kernelspec: { name: 'python3', display_name: 'Python 3' }
          },
          cells: cells.map((cell, i) => ({
            id: `user-cell-${i}`,
            cell_type: cell.type,
            metadata: {},
            source: cell.source,
            ...(cell.type === 'code'
              ? { outputs: [], execution_count: null }
              : {})
          }))
        }
      });
      return ServerNotebookPort.open({ serverSettings: settings, path });
    },
    async restartElsewhere(port): Promise<void> {
      const kernel = (port as ServerNotebookPort).kernel;
      if (!kernel) {
        throw new Error('the port has no kernel');
      }
      await KernelAPI.restartKernel(kernel.id, settings);
    },
    async askInfoElsewhere(port): Promise<void> {
      const kernel = (port as ServerNotebookPort).kernel;
      if (!kernel) {
        throw new Error('the port has no kernel');
      }
      await askInfoOnControl(kernel, settings);
    },
    async writeFile(path, text): Promise<void> {
      await files.save(path, { type: 'file', format: 'text', content: text });
    },
    async close(port): Promise<void> {
      await (port as ServerNotebookPort).close({ shutdownKernel: true });
    }
  };
}

describePortContract('ServerNotebookPort', harness, {});
