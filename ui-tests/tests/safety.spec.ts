/**
 * Model output is untrusted, and JupyterLab's start-up stays light.
 */
import { expect, test } from '@jupyterlab/galata';
import { SIDEBAR } from './sidebar';
import * as fs from 'fs';
import * as path from 'path';
import type { Page } from '@playwright/test';
import { received, script } from './scripted-model';

const STATIC = path.join(
  __dirname,
  '..',
  '..',
  'jupyterlab_notebook_agent',
  'labextension',
  'static'
);

test.use({ kernels: null, sessions: null });

test.afterEach(async ({ page }) => {
  await page.kernel.shutdownAll();
});

/** Built chunks whose source contains `marker`. */
function chunksContaining(marker: string): string[] {
  return fs
    .readdirSync(STATIC)
    .filter(name => name.endsWith('.js') && !name.startsWith('remoteEntry'))
    .filter(name =>
      fs.readFileSync(path.join(STATIC, name), 'utf-8').includes(marker)
    );
}

async function loadedScripts(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    performance
      .getEntriesByType('resource')
      .map(entry => entry.name.split('/').pop()!.split('?')[0])
  );
}

test('markdown from the model is sanitized: no script, handler or javascript: link runs', async ({
  page,
  request
}) => {
  await page.notebook.createNew('sanitize.ipynb');
  await script(request, [
    {
      content:
        'Result **ok**\n\n<img src="x" onerror="window.__pwned = 1">\n\n' +
        '<script>window.__pwned = 2</script>\n\n[click me](javascript:window.__pwned=3)\n\n' +
        '<a href="https://example.org" onclick="window.__pwned = 4">site</a>'
    }
  ]);
  await page.sidebar.openTab(SIDEBAR);
  const sidebar = page.locator(`#${SIDEBAR}`);
  const prompt = sidebar.getByRole('textbox', { name: 'Ask Notebook Agent' });
  await prompt.fill('Say something');
  await prompt.press('Enter');
  const answer = sidebar.locator('.jp-AgentSidebar-assistant');
  await expect(answer.locator('strong')).toHaveText('ok');
  await expect(answer).toContainText('site');
  await answer.getByText('click me').click();
  await answer
    .getByText('site')
    .click({ modifiers: [] })
    .catch(() => undefined);
  expect(
    await page.evaluate(
      () => (window as unknown as { __pwned?: number }).__pwned
    )
  ).toBeUndefined();
  expect(await answer.locator('script').count()).toBe(0);
  expect(await answer.locator('[onerror], [onclick]').count()).toBe(0);
  const hrefs = await answer
    .locator('a')
    .evaluateAll(links => links.map(a => a.getAttribute('href') ?? ''));
  expect(
    hrefs.some(href => href.trim().toLowerCase().startsWith('javascript:'))
  ).toBe(false);
  expect(await received(request)).toHaveLength(1);
});

test('the openai client and the schema validator load on first use, not at JupyterLab start', async ({
  page,
  request
}) => {
  // The openai package sends X-Stainless-* headers; ajv words its errors this way.
  const openaiChunks = chunksContaining('X-Stainless');
  const ajvChunks = chunksContaining('must have required property');
  expect(openaiChunks.length).toBeGreaterThan(0);
  expect(ajvChunks.length).toBeGreaterThan(0);
  const lazy = [...openaiChunks, ...ajvChunks];
  const atStart = await loadedScripts(page);
  expect(atStart.some(name => name.startsWith('remoteEntry'))).toBe(true);
  for (const chunk of lazy) {
    expect(atStart).not.toContain(chunk);
  }

  await page.notebook.createNew('lazy.ipynb');
  await script(request, [
    { tool_calls: [{ name: 'read_notebook', arguments: {} }] },
    { content: 'loaded' }
  ]);
  await page.sidebar.openTab(SIDEBAR);
  const sidebar = page.locator(`#${SIDEBAR}`);
  const prompt = sidebar.getByRole('textbox', { name: 'Ask Notebook Agent' });
  await prompt.fill('Read the notebook');
  await prompt.press('Enter');
  await expect(sidebar.locator('.jp-AgentSidebar-assistant')).toContainText(
    'loaded'
  );
  const afterUse = await loadedScripts(page);
  for (const chunk of lazy) {
    expect(afterUse).toContain(chunk);
  }
});
