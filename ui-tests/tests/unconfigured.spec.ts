/**
 * A Jupyter server with no model endpoint configured: out of the box the
 * agent uses the in-browser local model, and the sidebar says so and how to
 * configure an endpoint instead. With downloads turned off (no network
 * here), a prompt fails with a readable error without touching the notebook.
 */
import { expect, test } from '@jupyterlab/galata';
import { cellSource, setAgentSettings, SIDEBAR } from './sidebar';

test.use({ kernels: null, sessions: null });

test('with no endpoint configured, the sidebar runs a local model and says how to configure an endpoint', async ({
  page
}) => {
  // The hub answers the sidebar's first check, as online (offline-start.spec.ts is the offline case).
  await page
    .context()
    .route(/^https:\/\/huggingface\.co\/.*\/config\.json$/, route =>
      route.fulfill({
        status: 206,
        headers: { 'access-control-allow-origin': '*' },
        body: '{'
      })
    );
  await page.notebook.createNew('unconfigured.ipynb');
  await page.sidebar.openTab(SIDEBAR);
  const sidebar = page.locator(`#${SIDEBAR}`);
  const notice = sidebar.getByRole('status');
  await expect(notice).toContainText(
    'Notebook Agent runs a small model in this browser'
  );
  await expect(notice).toContainText('OPENAI_BASE_URL=');
  await expect(sidebar).toContainText('(in this browser)');

  // No hub here: keep the default local model from trying to download.
  await expect(() =>
    setAgentSettings(page, { localModelAllowRemote: false })
  ).toPass({ timeout: 15000 });
  const prompt = sidebar.getByRole('textbox', { name: 'Ask Notebook Agent' });
  await prompt.fill('Plot my data');
  await prompt.press('Enter');
  const alert = sidebar.getByRole('alert').last();
  await expect(alert).toContainText('A model file is missing', {
    timeout: 30000
  });
  await expect(alert).toContainText('downloads are turned off');
  await expect(sidebar.getByRole('button', { name: 'Send' })).toBeVisible();
  expect(await page.notebook.getCellCount()).toBe(1);
  expect(await cellSource(page, 0)).toBe('');
  await page.kernel.shutdownAll();
});
