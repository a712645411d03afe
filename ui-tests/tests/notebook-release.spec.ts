/**
 * Closed notebooks are released: the extension makes a port for every
 * notebook panel, and the port used to stay connected to JupyterLab's
 * static NotebookActions.executionScheduled signal, which kept every panel
 * ever opened in memory. Open, run and close 20 notebooks the way a user
 * does (JupyterLab's own commands: open, run the cell, save, close the
 * tab; bench/lib/notebook-cycles.ts, which the memory benchmark uses too),
 * collect garbage (CDP), and count the closed panels still reachable (the
 * extension's test hook keeps WeakRefs to every panel it saw).
 */
import { expect, test } from '@jupyterlab/galata';
import type { Page } from '@playwright/test';
import { openAndCloseNotebooks } from '../../bench/lib/notebook-cycles';

test.use({ kernels: null, sessions: null });

test.afterEach(async ({ page }) => {
  await page.kernel.shutdownAll();
});

test('20 notebooks opened, run and closed are all released from memory', async ({
  page
}) => {
  test.setTimeout(300000);
  await page.waitForFunction(() => 'notebookAgentTest' in window);
  await openAndCloseNotebooks(page, 20);
  // Timers that still hold the last panel for a moment (autosave, status
  // debouncers) fire later on a loaded machine: collect twice and count,
  // until none is left or 20 s passed. A leak keeps panels for good.
  // The fixture is a proxy around the real Page, which CDP wants.
  const real = (page as unknown as { page: Page }).page;
  const cdp = await page.context().newCDPSession(real);
  const count = async () => {
    await cdp.send('HeapProfiler.collectGarbage');
    await cdp.send('HeapProfiler.collectGarbage');
    return page.evaluate(() =>
      (
        window as unknown as {
          notebookAgentTest: {
            livePanels(): { opened: number; closedInMemory: number };
          };
        }
      ).notebookAgentTest.livePanels()
    );
  };
  expect((await count()).opened).toBeGreaterThanOrEqual(20);
  await expect
    .poll(async () => (await count()).closedInMemory, {
      timeout: 20000,
      intervals: [1000]
    })
    .toBe(0);
});
