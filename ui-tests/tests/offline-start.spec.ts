/**
 * First start offline: a Jupyter server with no endpoint (the sidebar's
 * default is the in-browser model) and a hub that cannot be reached (this
 * machine has no internet; the hub's requests are also aborted, so the
 * test does not depend on how the network fails). Before any prompt the
 * sidebar says which host it cannot reach and offers three ways out, each
 * doing what it says; a prompt then fails naming the file and host, with
 * one status line, and Retry does not copy the question.
 */
import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@jupyterlab/galata';
import { SIDEBAR, finished, openAgent } from './sidebar';

test.use({ kernels: null, sessions: null });

test('offline first start: says the hub cannot be reached, offers three ways out, one status line, Retry without a second question', async ({
  page
}) => {
  const hub: string[] = [];
  await page.context().route(/^https:\/\/huggingface\.co\//, route => {
    hub.push(route.request().url());
    return route.abort('internetdisconnected');
  });
  await page.notebook.createNew('offline.ipynb');
  await openAgent(page);
  const sidebar = page.locator(`#${SIDEBAR}`);
  const notice = sidebar.locator('.jp-AgentSidebar-offline');

  // Before any prompt: the real cause, named.
  await expect(notice).toBeVisible({ timeout: 15000 });
  await expect(notice.locator('strong')).toHaveText(
    'Can’t reach huggingface.co — offline or blocked?'
  );
  await expect(notice).toContainText(
    'https://huggingface.co/onnx-community/Qwen3-0.6B-ONNX/resolve/main/config.json'
  );
  // One request, for the small file, and the first-start notice gives way.
  expect(hub).toEqual([
    'https://huggingface.co/onnx-community/Qwen3-0.6B-ONNX/resolve/main/config.json'
  ]);
  await expect(sidebar.locator('.jp-AgentSidebar-notice')).toHaveCount(1);
  await expect(sidebar).not.toContainText('runs a small model in this browser');

  // The three ways out, each doing what it says.
  const endpoint = notice.getByRole('button', { name: 'Use an endpoint' });
  const server = notice.getByRole('button', {
    name: 'Serve weights from the server'
  });
  const settings = notice.getByRole('button', { name: 'Open settings' });
  await expect(endpoint).toBeVisible();
  await expect(server).toBeVisible();
  await expect(settings).toBeVisible();

  // 1. The endpoint: the exact variables the server reads.
  await expect(
    notice.getByText('OPENAI_BASE_URL=', { exact: false })
  ).toBeHidden();
  await endpoint.click();
  await expect(endpoint).toHaveAttribute('aria-expanded', 'true');
  const variables = notice
    .locator('pre')
    .filter({ hasText: 'OPENAI_BASE_URL=' });
  await expect(variables).toBeVisible();
  await expect(variables).toContainText('OPENAI_API_KEY=');
  if (process.env.SCREENSHOTS) {
    // The picture of the offline notice in docs/models.md (SCREENSHOTS=1).
    await page.screenshot({ path: '../docs/offline-notice.png' });
  }
  // 2. Weights from the server: its setting.
  await server.click();
  await expect(server).toHaveAttribute('aria-expanded', 'true');
  await expect(endpoint).toHaveAttribute('aria-expanded', 'false');
  const serverLine = notice
    .locator('pre')
    .filter({ hasText: 'c.NotebookAgent.local_models_dir' });
  await expect(serverLine).toBeVisible();
  await expect(notice).toContainText('notebook-agent/models/');
  await expect(variables).toBeHidden();

  // axe-core on the notice, a way out open.
  await page.evaluate(() => (document.body.style.height = '100vh'));
  const results = await new AxeBuilder({ page })
    .include(`#${SIDEBAR} .jp-AgentSidebar-offline`)
    .analyze();
  await page.evaluate(() => (document.body.style.height = ''));
  const serious = results.violations
    .filter(v => v.impact === 'serious' || v.impact === 'critical')
    .map(v => `${v.impact} ${v.id}: ${v.nodes[0]?.target.join(' ')}`);
  expect(serious).toEqual([]);
  expect(
    results.passes.find(rule => rule.id === 'color-contrast')?.nodes.length ?? 0
  ).toBeGreaterThan(3);

  // 3. Settings: the Settings Editor opens on Notebook Agent.
  await settings.click();
  const editor = page.getByRole('main').getByRole('tab', { name: 'Settings' });
  await expect(editor).toBeVisible();
  await expect(
    page.getByRole('main').getByText('Local model host').first()
  ).toBeVisible({ timeout: 15000 });
  await page.activity.activateTab('Settings');
  await page.evaluate(() =>
    window.jupyterapp.commands.execute('application:close')
  );
  await expect(editor).toHaveCount(0);
  await page.activity.activateTab('offline.ipynb');

  // A prompt anyway: the failure names the file and the host.
  const prompt = await openAgent(page);
  await prompt.fill('Plot my data');
  await prompt.press('Enter');
  const alert = sidebar.getByRole('alert');
  await expect(alert).toContainText(
    /Could not download \S+ from huggingface\.co/,
    {
      timeout: 30000
    }
  );
  await expect(alert).toContainText(
    'Can’t reach huggingface.co — offline or blocked?'
  );
  await expect(alert).not.toContainText('browser console');
  await finished(page);
  // One status line: the banner (no grey, orange and red lines above it).
  await expect(alert).toHaveCount(1);
  await expect(sidebar.locator('.jp-AgentSidebar-localModel')).toHaveCount(0);
  const users = sidebar.locator('.jp-AgentSidebar-user');
  await expect(users).toHaveCount(1);

  // Retry sends again, and the question stays once in the chat.
  const before = hub.length;
  await alert.getByRole('button', { name: 'Retry' }).click();
  await expect.poll(() => hub.length).toBeGreaterThan(before);
  await finished(page);
  await expect(alert).toContainText(
    /Could not download \S+ from huggingface\.co/
  );
  await expect(alert).toHaveCount(1);
  await expect(users).toHaveCount(1);
  await expect(users).toHaveText('Plot my data');
  expect(await page.notebook.getCellCount()).toBe(1);
  await page.kernel.shutdownAll();
});
