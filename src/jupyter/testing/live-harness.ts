/**
 * The port contract's harness for the live port, inside the page: each
 * case's notebook is a file saved through the contents API and opened in
 * this JupyterLab like any notebook (its kernel started by the session as
 * usual), and the port is the one the extension made for its panel.
 * "Another client" restarting the kernel is a REST call, not the panel's
 * kernel connection.
 */
import type { JupyterFrontEnd } from '@jupyterlab/application';
import type { NotebookPanel } from '@jupyterlab/notebook';
import { KernelAPI } from '@jupyterlab/services';
import type { INotebookPort } from '../../agent/ports';
import type { IUserCell } from '../../agent/testing/port-contract/contract';
import { nudgeIfSilent } from '../../kernel/kernel-probes';
import { askInfoOnControl } from '../../kernel/testing/another-client';
import type { ILiveHarness } from './live-measures';

/** How long a case's notebook may take to open with an idle kernel. */
const OPEN_TIMEOUT_MS = 60000;

/** The live port's harness in `app`. */
export function liveHarness(
  app: JupyterFrontEnd,
  portFor: (panel: NotebookPanel) => Promise<INotebookPort | null>
): ILiveHarness {
  const contents = app.serviceManager.contents;
  const panels = new Map<INotebookPort, NotebookPanel>();
  let opened = 0;
  const kernelOf = (port: INotebookPort) => {
    const kernel = panels.get(port)?.sessionContext.session?.kernel;
    if (!kernel) {
      throw new Error('the case’s notebook has no kernel');
    }
    return kernel;
  };
  return {
    name: 'LiveNotebookPort',
    panelOf(port: INotebookPort): NotebookPanel {
      const panel = panels.get(port);
      if (!panel) {
        throw new Error('not a port of this harness');
      }
      return panel;
    },
    notApplicable: {},
    async open(cells: IUserCell[] = []): Promise<INotebookPort> {
      opened += 1;
      const path = `port-contract-${Date.now()}-${opened}.ipynb`;
      await contents.save(path, {
        type: 'notebook',
        format: 'json',
        content: {
          nbformat: 4,
          nbformat_minor: 5,
          metadata: {
            kernelspec: { name: 'python3', display_name: 'Python 3' }
          },
          cells: cells.map(cell => ({
            cell_type: cell.type,
            metadata: {},
            source: cell.source,
            ...(cell.type === 'code'
              ? { outputs: [], execution_count: null }
              : {})
          }))
        }
      });
      const panel = (await app.commands.execute('docmanager:open', {
        path,
        factory: 'Notebook'
      })) as NotebookPanel;
      await panel.context.ready;
      await panel.sessionContext.ready;
      const port = await portFor(panel);
      if (!port) {
        throw new Error(`${path}: the extension made no port for it`);
      }
      const deadline = Date.now() + OPEN_TIMEOUT_MS;
      for (;;) {
        const kernel = panel.sessionContext.session?.kernel;
        if (kernel?.status === 'idle') {
          break;
        }
        if (Date.now() > deadline) {
          throw new Error(
            `${path}: no idle kernel within ${OPEN_TIMEOUT_MS} ms`
          );
        }
        if (kernel) {
          nudgeIfSilent(kernel);
        }
        await new Promise(resolve => setTimeout(resolve, 50));
      }
      panels.set(port, panel);
      return port;
    },
    async restartElsewhere(port): Promise<void> {
      const kernel = kernelOf(port);
      await KernelAPI.restartKernel(kernel.id, kernel.serverSettings);
    },
    async askInfoElsewhere(port): Promise<void> {
      const kernel = kernelOf(port);
      await askInfoOnControl(kernel, kernel.serverSettings);
    },
    async writeFile(path, text): Promise<void> {
      await contents.save(path, {
        type: 'file',
        format: 'text',
        content: text
      });
    },
    async close(port): Promise<void> {
      const panel = panels.get(port);
      panels.delete(port);
      if (panel && !panel.isDisposed) {
        await panel.sessionContext.shutdown().catch(() => undefined);
        // Saved first, so closing it asks nothing (as a user would have).
        await panel.context.save().catch(() => undefined);
        // (A case may leave it dirty, e.g. a reply landing after the save:
        // then the dialog is left to time out and the panel is disposed.)
        panel.close();
        const deadline = Date.now() + 5000;
        while (!panel.isDisposed && Date.now() < deadline) {
          await new Promise(resolve => setTimeout(resolve, 20));
        }
        panel.dispose();
      }
    }
  };
}
