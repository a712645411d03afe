/**
 * A Jupyter server with no model endpoint configured: the sidebar says how to
 * configure one before the first prompt, and a prompt explains it again
 * without touching the notebook.
 */
import { expect, test } from '@jupyterlab/galata';
import { SIDEBAR } from './sidebar';

test.use({ kernels: null, sessions: null });

test('with no endpoint configured, the sidebar says exactly how to configure one', async ({
  page
}) => {
  await page.notebook.createNew('unconfigured.ipynb');
  await page.sidebar.openTab(SIDEBAR);
  const sidebar = page.locator(`#${SIDEBAR}`);
  const notice = sidebar.getByRole('status');
  await expect(notice).toContainText('No model endpoint is configured');
  await expect(notice).toContainText('OPENAI_BASE_URL=');

  const prompt = sidebar.getByRole('textbox', { name: 'Ask Notebook Agent' });
  await prompt.fill('Plot my data');
  await prompt.press('Enter');
  const alert = sidebar.getByRole('alert');
  await expect(alert).toContainText('No model endpoint is configured');
  await expect(alert).toContainText('OPENAI_BASE_URL');
  expect(await page.notebook.getCellCount()).toBe(1);
  expect(await page.notebook.getCellTextInput(0)).toBe('');
  await page.kernel.shutdownAll();
});
