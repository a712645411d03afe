/**
 * The sidebar's popovers close the way a user expects: History closes on
 * Escape (the focus back on History), on a click outside, on New chat and
 * when the sidebar is hidden; the @ picker closes on a click outside.
 */
import { expect, test } from '@jupyterlab/galata';
import { SIDEBAR, openAgent } from './sidebar';

test.use({ kernels: null, sessions: null });

test.afterEach(async ({ page }) => {
  await page.kernel.shutdownAll();
});

test('History closes on Escape, an outside click, New chat and sidebar hide; @ closes on an outside click', async ({
  page
}) => {
  await page.notebook.createNew('popovers.ipynb');
  await page.notebook.setCell(0, 'code', 'x = 1');
  const prompt = await openAgent(page);
  const sidebar = page.locator(`#${SIDEBAR}`);
  const history = sidebar.getByRole('button', { name: 'History' });
  const list = sidebar.getByRole('list', { name: 'Earlier chats' });

  // Escape, from the keyboard: the focus goes back to History.
  await history.focus();
  await page.keyboard.press('Enter');
  await expect(list).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(list).toHaveCount(0);
  await expect(history).toBeFocused();
  await expect(history).toHaveAttribute('aria-expanded', 'false');

  // A click outside (on the notebook).
  await history.click();
  await expect(list).toBeVisible();
  await page.locator('.jp-Notebook').click();
  await expect(list).toHaveCount(0);

  // New chat, reached with the keyboard (no outside click involved).
  await history.click();
  await expect(list).toBeVisible();
  await page.keyboard.press('Shift+Tab');
  await expect(sidebar.getByRole('button', { name: 'New chat' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(list).toHaveCount(0);

  // Hiding the sidebar (its tab's command), then showing it again.
  await history.focus();
  await page.keyboard.press('Enter');
  await expect(list).toBeVisible();
  await page.evaluate(() =>
    (
      window.jupyterapp.shell as unknown as { collapseRight: () => void }
    ).collapseRight()
  );
  await expect(sidebar).toBeHidden();
  await openAgent(page);
  await expect(history).toBeVisible();
  await expect(list).toHaveCount(0);

  // The @ picker: a click outside closes it; the text stays.
  await prompt.click();
  await page.keyboard.type('@');
  const picker = sidebar.getByRole('listbox', {
    name: 'Cells and variables to mention'
  });
  await expect(picker).toBeVisible();
  await page.locator('.jp-Notebook').click();
  await expect(picker).toHaveCount(0);
  await expect(prompt).toHaveValue('@');
});
