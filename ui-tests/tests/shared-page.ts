/**
 * One JupyterLab page for the tests of a file, instead of Galata's fresh
 * page per test: a fresh page costs 4–6 s on two cores (JupyterLab's start
 * in Chromium and Galata's set-up), often most of a short test.
 *
 * The page belongs to the Playwright worker. Before each test it is put
 * back as a fresh page would be for what these tests use: no document open,
 * no dialog, the agent stopped with a new chat, the file browser in the
 * test's own folder (Galata's `tmpPath`). After each test the file browser
 * goes back to the root before Galata deletes that folder: left in it, the
 * browser's next refresh opened a "Directory not found" dialog over the
 * next test's page (a timed-out click in project-rules.spec.ts). After a failed test Playwright
 * replaces the worker, so the next test gets a new page and a failure
 * cannot leak into it. A file that routes requests, reloads the page,
 * changes the theme or hides the side panels keeps Galata's own `page`
 * (import from '@jupyterlab/galata'), as do tests that must start from a
 * page load.
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
    ],
    page: async ({ sharedPage, tmpPath }, use) => {
      await freshen(sharedPage, tmpPath);
      await use(sharedPage);
      await leaveFolder(sharedPage);
    }
  }
);

export { expect } from '@jupyterlab/galata';

/** Put the shared page back as a test expects to find it. */
async function freshen(
  page: IJupyterLabPageFixture,
  folder: string
): Promise<void> {
  for (let i = 0; i < 3 && (await page.locator('.jp-Dialog').count()); i++) {
    await page.keyboard.press('Escape');
  }
  await page.evaluate(async path => {
    const app = window.jupyterapp;
    await app.commands.execute('notebook-agent:stop');
    // Without saving: the files of the test before are gone already.
    for (const widget of Array.from(app.shell.widgets('main'))) {
      widget.dispose();
    }
    await app.commands.execute('notebook-agent:new-chat');
    // (A command, not the breadcrumbs: a test may have hidden the browser.)
    await app.commands.execute('filebrowser:go-to-path', {
      path,
      dontShowBrowser: true
    });
  }, folder);
  // A draft left in the prompt box would change what the next test types.
  const prompt = page.getByRole('textbox', { name: 'Ask Notebook Agent' });
  if (await prompt.isVisible()) {
    await prompt.fill('');
  }
}

/**
 * Take the file browser out of the test's folder, which Galata deletes
 * once this fixture is torn down. Best effort: a test that broke the page
 * gets a new worker, and with it a new page, anyway.
 */
async function leaveFolder(page: IJupyterLabPageFixture): Promise<void> {
  try {
    await page.evaluate(async () => {
      await window.jupyterapp.commands.execute('filebrowser:go-to-path', {
        path: '/',
        dontShowBrowser: true
      });
    });
  } catch {
    // The page is closed or broken: nothing shows a dialog on it.
  }
}
