/**
 * One JupyterLab page for many tests of a file, where each test cleans up
 * after itself (the port contract's cases open and close notebooks of
 * their own): a fresh page costs 4–6 s on two cores (JupyterLab's start in
 * Chromium, Galata's set-up), most of a short case. The page belongs to
 * the Playwright worker: after a failed test the worker is replaced, and
 * the next test gets a new page, so a failure cannot leak into it.
 */
import { galata, test as base } from '@jupyterlab/galata';
import type { IJupyterLabPageFixture } from '@jupyterlab/galata';

export const test = base.extend<object, { sharedPage: IJupyterLabPageFixture }>(
  {
    sharedPage: [
      async ({ browser }, use, workerInfo) => {
        const { page } = await galata.newPage({
          baseURL: workerInfo.project.use.baseURL!,
          browser,
          mockKernels: false,
          mockSessions: false,
          mockTerminals: false,
          waitForApplication: async appPage => {
            await appPage
              .locator('#jupyterlab-splash')
              .waitFor({ state: 'detached' });
          }
        });
        await use(page);
        await page.context().close();
      },
      { scope: 'worker' }
    ]
  }
);

export { expect } from '@jupyterlab/galata';
