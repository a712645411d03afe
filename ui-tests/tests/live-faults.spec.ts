/**
 * The user acts while the agent waits to run its cell (approval pending):
 * deletes or moves that cell, switches to another notebook, or closes the
 * notebook. The agent must act on the right cell or stop cleanly, and the
 * user's cells stay as they were.
 */
import type { IJupyterLabPageFixture } from '@jupyterlab/galata';
import { openOneCellNotebook } from './notebook-files';
import { expect, test } from './shared-page';
import { received, script } from './scripted-model';
import {
  ask,
  cellSource,
  finished,
  setAgentSettings,
  SIDEBAR
} from './sidebar';

test.use({ kernels: null, sessions: null });

test.afterEach(async ({ page }) => {
  await page.kernel.shutdownAll();
});

const USER_CELL = 'a = 1  # the user’s own cell';

/** A notebook with the user's cell; the agent inserts `code` and asks to run it. */
async function agentWaitsToRun(
  page: IJupyterLabPageFixture,
  request: Parameters<typeof script>[0],
  name: string,
  code: string
) {
  await page.notebook.createNew(name);
  await page.notebook.setCell(0, 'code', USER_CELL);
  await script(request, [
    { tool_calls: [{ name: 'insert_cell', arguments: { source: code } }] },
    {
      tool_calls: [{ name: 'run_cell', arguments: { cell_id: '{{cell_id}}' } }]
    },
    { content: 'Done.' }
  ]);
  await ask(page, 'Do it');
  const card = page
    .locator(`#${SIDEBAR}`)
    .getByRole('group', { name: 'Approval needed' });
  await expect(card).toBeVisible({ timeout: 30000 });
  return card;
}

test('the agent’s cell deleted while it waits: the run reports it and the user’s cell is untouched', async ({
  page,
  request
}) => {
  const card = await agentWaitsToRun(
    page,
    request,
    'deleted.ipynb',
    'print(1)'
  );
  await page.notebook.selectCells(1);
  await page.notebook.deleteCells();
  await card.getByRole('button', { name: 'Run' }).click();
  await finished(page);
  const requests = await received(request);
  const tools = requests[2].body.messages.filter(m => m.role === 'tool');
  expect(tools[tools.length - 1].content).toMatch(/no cell with id/i);
  expect(await page.notebook.getCellCount()).toBe(1);
  expect(await cellSource(page, 0)).toBe(USER_CELL);
});

test('the agent’s cell moved above the user’s: it still runs the right cell', async ({
  page,
  request
}) => {
  const card = await agentWaitsToRun(page, request, 'moved.ipynb', 'print(2)');
  await page.notebook.selectCells(1);
  await page.evaluate(() =>
    window.jupyterapp.commands.execute('notebook:move-cell-up')
  );
  await card.getByRole('button', { name: 'Run' }).click();
  await finished(page);
  expect(await cellSource(page, 0)).toBe('print(2)');
  expect(await cellSource(page, 1)).toBe(USER_CELL);
  await expect(
    page.locator('.jp-Notebook .jp-Cell').nth(0).locator('.jp-OutputArea')
  ).toContainText('2');
});

test('switching to another notebook: the agent keeps working in its own', async ({
  page,
  request,
  tmpPath
}) => {
  const card = await agentWaitsToRun(page, request, 'mine.ipynb', 'print(3)');
  await openOneCellNotebook(page, `${tmpPath}/other.ipynb`, 'b = 2');
  // The sidebar on the other notebook says where the run works, not its chat.
  const elsewhere = page
    .locator(`#${SIDEBAR}`)
    .locator('.jp-AgentSidebar-elsewhere');
  await expect(elsewhere).toHaveText(
    'Working in mine.ipynb (waiting for your approval) — Go there · Stop'
  );
  await expect(card).toHaveCount(0);
  // The user goes there to approve, then comes back.
  await elsewhere.getByRole('button', { name: 'Go there' }).click();
  await card.getByRole('button', { name: 'Run' }).click();
  await page.notebook.activate('other.ipynb');
  await finished(page);
  // Nothing happened in the other notebook…
  expect(await page.notebook.getCellCount()).toBe(1);
  expect(await cellSource(page, 0)).toBe('b = 2');
  // …and the agent's cell ran in its own notebook.
  await page.notebook.activate('mine.ipynb');
  expect(await cellSource(page, 1)).toBe('print(3)');
  await expect(
    page.locator('.jp-Notebook .jp-Cell').nth(1).locator('.jp-OutputArea')
  ).toContainText('3');
});

test('closing the notebook mid-run stops the agent with a clear message', async ({
  page,
  request
}) => {
  await agentWaitsToRun(page, request, 'closed.ipynb', 'print(4)');
  await page.notebook.close(true);
  const alert = page.locator(`#${SIDEBAR}`).getByRole('alert');
  await expect(alert).toContainText(
    'closed.ipynb was closed while the agent was working in it, so the agent stopped.'
  );
  await finished(page);
  // No further model call after the close.
  expect(await received(request)).toHaveLength(2);
});

test('closing the notebook while the agent’s cell runs interrupts that cell and says so', async ({
  page,
  request
}) => {
  await setAgentSettings(page, { approvalMode: 'run-everything' });
  try {
    await page.notebook.createNew('closed-running.ipynb');
    await script(request, [
      {
        tool_calls: [
          {
            name: 'insert_cell',
            arguments: {
              source:
                "import time\nprint('working', flush=True)\ntime.sleep(120)"
            }
          }
        ]
      },
      {
        tool_calls: [
          { name: 'run_cell', arguments: { cell_id: '{{cell_id}}' } }
        ]
      },
      { content: 'Done.' }
    ]);
    await ask(page, 'Sleep two minutes');
    await expect(
      page.locator('.jp-Notebook .jp-Cell').nth(1).locator('.jp-OutputArea')
    ).toContainText('working', { timeout: 30000 });
    // As a user closes it: the tab's close icon. The agent's edits are saved
    // after each step (save-agent-edits.ts), so JupyterLab asks about
    // unsaved changes only when outputs arrived after the last save: then
    // Discard.
    await page.activity
      .getTabLocator('closed-running.ipynb')
      .locator('.lm-TabBar-tabCloseIcon')
      .click();
    await page
      .locator('.jp-Dialog')
      .getByRole('button', { name: 'Discard' })
      .click({ timeout: 3000 })
      .catch(() => undefined);
    const sidebar = page.locator(`#${SIDEBAR}`);
    await expect(sidebar.getByRole('alert')).toContainText(
      'closed-running.ipynb was closed while the agent was working in it, so the agent stopped.'
    );
    await finished(page);
    await expect(sidebar).not.toContainText('Cannot read properties');
    await expect(sidebar).toContainText(
      "was closed while the agent's code was running in it: that code was interrupted"
    );
    // The kernel (still running: closing a notebook leaves it) is idle again.
    await expect
      .poll(
        () =>
          page.evaluate(async () => {
            const kernels = (await (
              await fetch('/api/kernels')
            ).json()) as Array<{ execution_state: string }>;
            return kernels.map(k => k.execution_state).join();
          }),
        { timeout: 15000 }
      )
      .toBe('idle');
    // No further model call after the close.
    expect(await received(request)).toHaveLength(2);
  } finally {
    await setAgentSettings(page, {});
  }
});
