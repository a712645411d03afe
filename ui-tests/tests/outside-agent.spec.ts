/**
 * An outside agent (the official MCP SDK client, over HTTP) works in a
 * notebook open in JupyterLab (#36): its run shows in the sidebar, its cell
 * runs only once the user approves it there, a secret a cell prints reaches
 * it as [redacted], Stop ends its run (and later calls are refused), and one
 * Undo reverts all it did.
 */
import * as path from 'path';
import { expect, test } from './shared-page';
import { OutsideAgent } from './outside-agent';
import { openAgent, SIDEBAR } from './sidebar';

test.use({ kernels: null, sessions: null });

test.afterEach(async ({ page }) => {
  await page.kernel.shutdownAll();
});

const NOTEBOOK = 'outside.ipynb';

async function mcpUrl(page: { url(): string }): Promise<string> {
  return new URL('/notebook-agent/mcp', page.url()).toString();
}

/** The path of the open notebook `name`, as list_notebooks names it (Galata puts each test in a folder). */
async function openPath(agent: OutsideAgent, name: string): Promise<string> {
  let found = '';
  await expect
    .poll(async () => {
      const listed = JSON.parse(
        (await agent.call('list_notebooks', {})).text
      ) as {
        open_in_jupyterlab: string[];
      };
      found =
        listed.open_in_jupyterlab.find(
          p => p.endsWith(`/${name}`) || p === name
        ) ?? '';
      return found;
    })
    .not.toBe('');
  return found;
}

test('an MCP client works in the open notebook: approval in the sidebar, the cell runs, one Undo', async ({
  page
}) => {
  await page.notebook.createNew(NOTEBOOK);
  await openAgent(page);
  const agent = await OutsideAgent.start(await mcpUrl(page), 'SDK Agent');
  try {
    const notebook = await openPath(agent, NOTEBOOK);
    const read = await agent.call('read_notebook', { notebook });
    expect(read.isError, read.text).toBe(false);
    const sidebar = page.locator(`#${SIDEBAR}`);
    await expect(sidebar).toContainText(`SDK Agent is working in ${notebook}`);
    // A run waits for the user's approval in the sidebar.
    const running = agent.begin('insert_cell', {
      notebook,
      source: 'print(6 * 7)\nprint("sk-ui-test-key-" + "kept-on-server")',
      run: true
    });
    const card = sidebar.getByRole('group', { name: 'Approval needed' });
    await expect(card).toBeVisible({ timeout: 30000 });
    await card.getByRole('button', { name: 'Run' }).click();
    const ran = await running;
    expect(ran.isError, ran.text).toBe(false);
    expect(ran.text).toContain('42');
    // The server's key, printed by the cell, reaches the outside agent redacted.
    expect(ran.text).not.toContain('sk-ui-test-key-kept-on-server');
    expect(ran.text).toContain('[redacted]');
    await expect(
      page.locator('.jp-Notebook .jp-Cell').last().locator('.jp-OutputArea')
    ).toContainText('42');
  } finally {
    await agent.close();
  }
  await expect(page.locator(`#${SIDEBAR}`)).toContainText(
    `SDK Agent finished in`
  );
  // One Undo reverts the whole outside run.
  const cells = page.locator('.jp-Notebook .jp-Cell');
  await expect(cells).toHaveCount(2);
  await page.locator('.jp-Notebook .jp-Cell').first().click();
  await page.keyboard.press('Escape');
  await page.keyboard.press('z');
  await expect(cells).toHaveCount(1);
});

test('Stop ends an outside run: what runs is interrupted and later calls are refused', async ({
  page
}) => {
  await page.notebook.createNew('stopped.ipynb');
  await openAgent(page);
  const agent = await OutsideAgent.start(await mcpUrl(page), 'SDK Agent');
  try {
    const notebook = await openPath(agent, 'stopped.ipynb');
    const running = agent.begin('insert_cell', {
      notebook,
      source: 'import time\nfor i in range(60):\n    time.sleep(1)',
      run: true
    });
    const sidebar = page.locator(`#${SIDEBAR}`);
    const card = sidebar.getByRole('group', { name: 'Approval needed' });
    await expect(card).toBeVisible({ timeout: 30000 });
    await card.getByRole('button', { name: 'Run' }).click();
    await page.waitForTimeout(1500);
    await sidebar.getByRole('button', { name: 'Stop' }).click();
    const stopped = await running;
    expect(stopped.text).toMatch(/stopped|interrupt/i);
    await expect(sidebar).toContainText('You stopped SDK Agent');
    const after = await agent.call('insert_cell', {
      notebook,
      source: 'print(1)'
    });
    expect(after.isError).toBe(true);
    expect(after.text).toContain('The user stopped your run');
  } finally {
    await agent.close();
  }
});

test('over stdio: the SDK client starts notebook-agent mcp, which relays to the notebook', async ({
  page
}) => {
  await page.notebook.createNew('bridged.ipynb');
  await openAgent(page);
  const bin = path.join(__dirname, '..', '..', 'bin', 'notebook-agent.cjs');
  const server = new URL('/', page.url()).toString();
  const agent = await OutsideAgent.start('', 'Stdio Agent', [
    'node',
    bin,
    'mcp',
    '--server',
    server
  ]);
  try {
    const notebook = await openPath(agent, 'bridged.ipynb');
    const running = agent.begin('insert_cell', {
      notebook,
      source: 'print(6 * 9)',
      run: true
    });
    const sidebar = page.locator(`#${SIDEBAR}`);
    await expect(sidebar).toContainText(
      `Stdio Agent is working in ${notebook}`
    );
    const card = sidebar.getByRole('group', { name: 'Approval needed' });
    await expect(card).toBeVisible({ timeout: 30000 });
    await card.getByRole('button', { name: 'Run' }).click();
    const ran = await running;
    expect(ran.isError, ran.text).toBe(false);
    expect(ran.text).toContain('54');
  } finally {
    await agent.close();
  }
  await expect(page.locator(`#${SIDEBAR}`)).toContainText(
    'Stdio Agent finished in'
  );
});
