/**
 * Fix this cell as the user reads it: the "Fix with Agent" button fits
 * under an error (and is not offered for the user's own interrupt); the
 * user's line names the cell as they see it ("Fix cell [3]: <first line>");
 * retries are status lines, an answer without an edit is not an attempt;
 * the result ends in view; "Show cell" on a deleted cell says so.
 */
import type { IJupyterLabPageFixture } from '@jupyterlab/galata';
import { expect, test } from './shared-page';
import { script } from './scripted-model';
import { SIDEBAR, finished } from './sidebar';

test.use({ kernels: null, sessions: null });

test.afterEach(async ({ page }) => {
  await page.kernel.shutdownAll();
});

const cellAt = (page: IJupyterLabPageFixture, index: number) =>
  page.locator('.jp-Notebook .jp-Cell').nth(index);

/** The ids and execution counts of the current notebook's cells. */
const cellsOf = (page: IJupyterLabPageFixture) =>
  page.evaluate(() => {
    const panel = window.jupyterapp.shell.currentWidget as unknown as {
      content: {
        widgets: Array<{
          model: { id: string; toJSON(): { execution_count?: number | null } };
        }>;
      };
    };
    return panel.content.widgets.map(cell => ({
      id: cell.model.id,
      count: cell.model.toJSON().execution_count ?? null
    }));
  });

/** A long answer: the transcript then scrolls, and the result must be brought into view. */
const RAMBLE = Array.from(
  { length: 14 },
  (_, i) => `${i + 1}. The name may be misspelt; nothing to change yet.`
).join('\n\n');

test('Fix with Agent fits, not on an interrupt; "Fix cell [n]: …", status lines, no-edit turns not counted, result in view; Show cell on a deleted cell', async ({
  page,
  request
}) => {
  const broken = 'result = valeu * 2\nresult';
  await page.notebook.createNew('fixux.ipynb');
  await page.notebook.setCell(0, 'code', 'value = 21');
  // What the user's own interrupt leaves: a KeyboardInterrupt error.
  await page.notebook.addCell('code', 'raise KeyboardInterrupt');
  await page.notebook.addCell('code', broken);
  for (const index of [0, 1, 2]) {
    await page.notebook.runCell(index, { inplace: true });
  }
  await expect(cellAt(page, 1).locator('.jp-OutputArea')).toContainText(
    'KeyboardInterrupt'
  );
  // The button shows on the error, after the buttons were synced with the
  // interrupt's output too: that cell has none.
  const fix = cellAt(page, 2).getByRole('button', { name: 'Fix with Agent' });
  await expect(fix).toBeVisible();
  await expect(fix).toHaveText('Fix with Agent');
  await expect(
    cellAt(page, 1).getByRole('button', { name: 'Fix with Agent' })
  ).toHaveCount(0);
  // Whole: inside its cell, its label not cut.
  const [button, cell] = [
    await fix.boundingBox(),
    await cellAt(page, 2).boundingBox()
  ];
  expect(button!.x).toBeGreaterThanOrEqual(cell!.x);
  expect(button!.x + button!.width).toBeLessThanOrEqual(cell!.x + cell!.width);
  const label = fix.locator('.jp-AgentFixButton-label');
  expect(
    await label.evaluate(node => node.scrollWidth <= node.clientWidth)
  ).toBe(true);
  expect(await fix.evaluate(node => node.scrollWidth <= node.clientWidth)).toBe(
    true
  );
  // Collapsing the outputs takes the button along; expanding brings it back.
  await cellAt(page, 2).locator('.jp-OutputArea').click();
  await page.evaluate(() =>
    window.jupyterapp.commands.execute('notebook:hide-cell-outputs')
  );
  await expect(cellAt(page, 2).locator('.jp-OutputPlaceholder')).toBeVisible();
  await expect(fix).toBeHidden();
  await page.evaluate(() =>
    window.jupyterapp.commands.execute('notebook:show-cell-outputs')
  );
  await expect(fix).toBeVisible();
  // In a narrow cell, the icon alone, with its name and tooltip.
  const bar = cellAt(page, 2).locator('.jp-AgentFixBar');
  await bar.evaluate(node => (node.style.width = '180px'));
  await expect(label).toBeHidden();
  await expect(fix.locator('svg')).toBeVisible();
  await expect(fix).toHaveAttribute('title', /fix this cell/);
  await bar.evaluate(node => (node.style.width = ''));
  await expect(label).toBeVisible();

  const cells = await cellsOf(page);
  const target = cells[2];
  expect(target.count).not.toBeNull();
  await script(request, [
    // An answer without an edit: not an attempt.
    { content: RAMBLE },
    {
      tool_calls: [
        {
          name: 'edit_cell',
          arguments: {
            cell_id: target.id,
            source: 'result = value * 2\nresult'
          }
        }
      ]
    },
    { tool_calls: [{ name: 'run_cell', arguments: { cell_id: target.id } }] },
    { content: 'A typo: valeu → value.' }
  ]);
  await fix.click();

  const sidebar = page.locator(`#${SIDEBAR}`);
  const review = sidebar.getByRole('region', { name: 'Review the fix' });
  await expect(review.locator('strong')).toHaveText(
    'The cell runs without error now. (1 attempt)',
    { timeout: 60000 }
  );
  await finished(page);
  // The user's line: the cell as they see it, and its first line; never its id.
  const users = sidebar.locator('.jp-AgentSidebar-user');
  await expect(users).toHaveText([
    `Fix cell [${target.count}]: result = valeu * 2`
  ]);
  // The retry is a status line, not a message of the user's.
  const status = sidebar.locator('.jp-AgentSidebar-note', {
    hasText: 'No cell was changed and the cell still fails'
  });
  await expect(status).toHaveText(
    'No cell was changed and the cell still fails: asking again (attempt 1 of 3)'
  );
  await expect(status).not.toHaveClass(/jp-AgentSidebar-user/);
  await expect(sidebar).not.toContainText(target.id);
  // The transcript scrolls, and ends on the result.
  const transcript = sidebar.locator('.jp-AgentSidebar-transcript');
  expect(
    await transcript.evaluate(node => node.scrollHeight > node.clientHeight)
  ).toBe(true);
  await expect(review.locator('strong')).toBeInViewport({ ratio: 1 });
  await expect(review.getByRole('button', { name: 'Accept' })).toBeInViewport();
  await review.getByRole('button', { name: 'Accept' }).click();

  // The fixed cell deleted: its card's Show cell says so.
  await page.evaluate(() => {
    const panel = window.jupyterapp.shell.currentWidget as unknown as {
      content: { model: { sharedModel: { deleteCell(i: number): void } } };
    };
    panel.content.model.sharedModel.deleteCell(2);
  });
  const card = sidebar.locator('[data-tool="run_cell"]').last();
  await card.getByRole('button', { name: 'Show cell' }).click();
  await expect(card.getByRole('status')).toHaveText('the cell was deleted');
  await expect(card.getByRole('status')).toBeVisible();
});

test('Fix This Cell from the cell menu fixes the cell right-clicked, not the active one; Ctrl+Alt+F fixes the active one', async ({
  page,
  request
}) => {
  await page.notebook.createNew('menufix.ipynb');
  await page.notebook.setCell(0, 'code', 'a = valeu * 2');
  await page.notebook.addCell('code', 'b = vlaue * 3');
  await page.notebook.runCell(0, { inplace: true });
  // Shift+Enter on the last cell: it runs, and the new empty cell below
  // is the active one.
  await cellAt(page, 1).locator('.jp-InputArea-editor').click();
  await page.keyboard.press('Shift+Enter');
  await expect(cellAt(page, 1).locator('.jp-OutputArea')).toContainText(
    "name 'vlaue' is not defined"
  );
  await expect(page.locator('.jp-Notebook .jp-Cell')).toHaveCount(3);

  const sidebar = page.locator(`#${SIDEBAR}`);
  const review = sidebar.getByRole('region', { name: 'Review the fix' });
  const lastUserLine = sidebar.locator('.jp-AgentSidebar-user').last();
  /** Fix from the menu of `area` and wait for the fix (which gives up) to end. */
  const fixFromMenu = async (area: ReturnType<typeof cellAt>) => {
    await script(request, [{ content: 'No idea.' }, { content: 'None.' }]);
    await area.click({ button: 'right' });
    await page
      .getByRole('menuitem', { name: 'Fix This Cell with Notebook Agent' })
      .click();
    await expect(review.locator('strong')).toHaveText(
      'The agent could not fix the cell.',
      { timeout: 60000 }
    );
    await finished(page);
  };

  // Right-clicked on the error of the cell above the active one.
  await fixFromMenu(cellAt(page, 1).locator('.jp-OutputArea'));
  await expect(lastUserLine).toHaveText(/^Fix cell \[\d+\]: b = vlaue \* 3$/);
  await review.getByRole('button', { name: 'Dismiss' }).click();

  // Two cells selected, the second one active: right-clicked on the first,
  // which JupyterLab leaves selected and not active.
  await cellAt(page, 0).locator('.jp-InputArea-prompt').click();
  await cellAt(page, 1)
    .locator('.jp-InputArea-prompt')
    .click({ modifiers: ['Shift'] });
  expect(
    await page.evaluate(
      () =>
        (
          window.jupyterapp.shell.currentWidget as unknown as {
            content: { activeCellIndex: number };
          }
        ).content.activeCellIndex
    )
  ).toBe(1);
  await fixFromMenu(cellAt(page, 0).locator('.jp-InputArea-prompt'));
  await expect(lastUserLine).toHaveText(/^Fix cell \[\d+\]: a = valeu \* 2$/);
  await review.getByRole('button', { name: 'Dismiss' }).click();

  // The shortcut fixes the active cell.
  await script(request, [{ content: 'No idea.' }, { content: 'None.' }]);
  await cellAt(page, 1).locator('.jp-InputArea-prompt').click();
  await page.keyboard.press('Control+Alt+f');
  await expect(review.locator('strong')).toHaveText(
    'The agent could not fix the cell.',
    { timeout: 60000 }
  );
  await expect(lastUserLine).toHaveText(/^Fix cell \[\d+\]: b = vlaue \* 3$/);
  await finished(page);
  await review.getByRole('button', { name: 'Dismiss' }).click();
});
