/**
 * A JupyterLab page with the extension's test hooks
 * (`window.notebookAgentTest`, src/jupyter/testing/test-hooks.ts) for the browser
 * benchmarks that measure the live port: a private server
 * (./lab-server.ts), headless Chromium (./browser.ts), a CDP session for
 * garbage collection and heap figures.
 */
import type {
  Browser,
  CDPSession,
  Page
} from '../../ui-tests/node_modules/playwright-core';
import { launchChromium } from './browser';
import { LabServer } from './lab-server';

/** An open JupyterLab page and what it runs on. */
export interface ILabPage {
  page: Page;
  cdp: CDPSession;
  server: LabServer;
  /** Call a hook: `window.notebookAgentTest[name](...args)`. */
  hook<T>(name: string, ...args: unknown[]): Promise<T>;
  /** JS heap in use after two full garbage collections, in bytes. */
  heapAfterGc(): Promise<number>;
  dispose(): Promise<void>;
}

/**
 * Start a server with `extraArgs` and open JupyterLab in a fresh page;
 * `extension: false` starts it without the labextension (no hooks then).
 */
export async function openLabPage(
  extraArgs: string[] = [],
  options: { extension?: boolean; port?: number } = {}
): Promise<ILabPage> {
  const extension = options.extension ?? true;
  const server = await LabServer.start({
    testHooks: extension,
    labExtension: extension,
    // Installed in the environment (ui-run links it there), it would load
    // even unlinked here: disable it too.
    disabledExtensions: extension ? [] : ['jupyterlab-notebook-agent'],
    port: options.port,
    extraArgs
  });
  let browser: Browser | null = null;
  try {
    browser = await launchChromium();
    const page = await browser.newPage();
    await page.goto(`${server.baseUrl}lab?reset&token=${server.token}`);
    await page.waitForFunction(
      extension
        ? "'notebookAgentTest' in window"
        : "'jupyterapp' in window && document.querySelector('.jp-LabShell') !== null",
      null,
      { timeout: 60000 }
    );
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('HeapProfiler.enable');
    const opened = browser;
    return {
      page,
      cdp,
      server,
      hook: <T>(name: string, ...args: unknown[]) =>
        page.evaluate(
          ([hookName, hookArgs]) =>
            (
              globalThis as unknown as Record<
                string,
                Record<string, (...a: unknown[]) => unknown>
              >
            ).notebookAgentTest[hookName as string](
              ...(hookArgs as unknown[])
            ),
          [name, args] as const
        ) as Promise<T>,
      async heapAfterGc() {
        await cdp.send('HeapProfiler.collectGarbage');
        await cdp.send('HeapProfiler.collectGarbage');
        const usage = (await cdp.send('Runtime.getHeapUsage')) as {
          usedSize: number;
        };
        return usage.usedSize;
      },
      async dispose() {
        await opened.close();
        await server.dispose();
      }
    };
  } catch (error) {
    await browser?.close();
    await server.dispose();
    throw error;
  }
}
