/**
 * The prompt's @ picker, keyboard only: `@` lists the notebook's cells and
 * variables, typing filters, arrows move, Enter or Tab picks (a cell becomes
 * a chip, a variable an @name), and Escape closes it without stopping a run.
 */
import { expect, test } from './shared-page';
import { received, script } from './scripted-model';
import { SIDEBAR, finished, openAgent } from './sidebar';

test.use({ kernels: null, sessions: null });

test.afterEach(async ({ page }) => {
  await page.kernel.shutdownAll();
});

test('@ offers cells and variables; picking attaches the cell or names the variable; Escape only closes it', async ({
  page,
  request
}) => {
  await page.notebook.createNew('mentions.ipynb');
  await page.notebook.setCell(0, 'code', 'import math\nvalues = [3, 1, 2]');
  await page.notebook.runCell(0, true);
  await page.notebook.addCell('markdown', '# Notes');
  await page.notebook.addCell('code', 'total = sum(values)');
  await page.notebook.runCell(2, true);

  const sidebar = page.locator(`#${SIDEBAR}`);
  const prompt = await openAgent(page);
  const listbox = sidebar.getByRole('listbox', {
    name: 'Cells and variables to mention'
  });
  const options = listbox.getByRole('option');

  // During a run, Escape closes the picker and the run goes on; a second Escape stops it.
  await script(request, [
    { content: `Slow answer ${'word '.repeat(60)}`, chunk_size: 4, delay: 0.2 }
  ]);
  await prompt.focus();
  await page.keyboard.type('Say something long');
  await page.keyboard.press('Enter');
  const stop = sidebar.getByRole('button', { name: 'Stop' });
  await expect(stop).toBeVisible();
  await page.keyboard.type('@');
  await expect(listbox).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(listbox).toHaveCount(0);
  await expect(prompt).toHaveValue('@');
  await expect(stop).toBeVisible();
  await expect(sidebar.locator('.jp-AgentSidebar-note')).toHaveCount(0);
  await page.keyboard.press('Escape');
  await finished(page);
  await expect(sidebar.locator('.jp-AgentSidebar-note')).toContainText(
    'Stopped.'
  );
  await page.keyboard.press('Backspace');
  await expect(prompt).toHaveValue('');

  // A bare @: the variables the run cells assigned, then every cell.
  await page.keyboard.type('Explain @');
  await expect(options).toHaveText([
    'Variable values',
    'Variable total',
    'Cell 1: import math',
    'Cell 2 (markdown): # Notes',
    'Cell 3: total = sum(values)'
  ]);
  await expect(options.first()).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await expect(options.nth(2)).toHaveAttribute('aria-selected', 'true');
  const activeId = await options.nth(2).getAttribute('id');
  await expect(prompt).toHaveAttribute('aria-activedescendant', activeId!);
  await page.keyboard.press('ArrowUp');
  await expect(options.nth(1)).toHaveAttribute('aria-selected', 'true');

  // Typing filters; Enter picks the cell: a chip, and the @3 is gone.
  await page.keyboard.type('3');
  await expect(options).toHaveText(['Cell 3: total = sum(values)']);
  await page.keyboard.press('Enter');
  await expect(listbox).toHaveCount(0);
  await expect(sidebar.locator('.jp-AgentSidebar-chip')).toHaveText('cell 3×');
  await expect(prompt).toHaveValue('Explain ');
  await expect(prompt).toBeFocused();

  // Tab picks a variable: it stays in the text as @name.
  await page.keyboard.type('and @val');
  await expect(options).toHaveText([
    'Variable values',
    'Cell 3: total = sum(values)',
    // Matched in its code only, so last.
    'Cell 1: import math'
  ]);
  await page.keyboard.press('Tab');
  await expect(prompt).toHaveValue('Explain and @values ');
  await expect(prompt).toBeFocused();

  // Enter with the picker closed sends, with the cell and the variable.
  await script(request, [{ content: 'Cell 3 adds up the values.' }]);
  await page.keyboard.press('Enter');
  await finished(page);
  await expect(sidebar).toContainText('Cell 3 adds up the values.');
  const [first] = await received(request);
  const user = first.body.messages.filter(m => m.role === 'user').pop();
  expect(user?.content).toContain('Cell 3 (cell_id');
  expect(user?.content).toContain('total = sum(values)');
  expect(user?.content).toContain('@values: builtins.list; [3, 1, 2]');
});

test('@ lists the kernel’s own variables: also ones no cell visibly assigns, not deleted ones or modules', async ({
  page
}) => {
  await page.notebook.createNew('kernel-variables.ipynb');
  await page.notebook.setCell(
    0,
    'code',
    "import os\nvalues = [1, 2]\nglobals()['made_by_code'] = 42"
  );
  await page.notebook.runCell(0, true);
  await page.notebook.addCell('code', 'gone = 1\ndel gone');
  await page.notebook.runCell(1, true);
  const sidebar = page.locator(`#${SIDEBAR}`);
  const prompt = await openAgent(page);
  await prompt.focus();
  await page.keyboard.type('Explain @');
  const variables = sidebar
    .getByRole('listbox', { name: 'Cells and variables to mention' })
    .getByRole('option')
    .filter({ hasText: /^Variable / });
  // The guess from the cells' text says values and gone; the kernel says values and made_by_code.
  await expect(variables).toHaveText([
    'Variable values',
    'Variable made_by_code'
  ]);
  // Asking the kernel ran nothing the user sees: the next cell is execution 3.
  await page.keyboard.press('Escape');
  await page.notebook.addCell('code', 'len(values)');
  await page.notebook.runCell(2, true);
  await expect(
    page.locator('.jp-Notebook .jp-Cell').nth(2).locator('.jp-InputPrompt')
  ).toContainText('[3]');
});
