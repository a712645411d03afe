/**
 * Approval before code runs: the user edits the code in the approval card,
 * then approves; the edited code is what runs in the kernel, and the model
 * is told the user changed it.
 */
import { expect, test } from './shared-page';
import { received, script } from './scripted-model';
import { ask, cellSource, finished, SIDEBAR } from './sidebar';

test.use({ kernels: null, sessions: null });

test.afterEach(async ({ page }) => {
  await page.kernel.shutdownAll();
});

test('edit then approve: the edited code runs and the model hears about the edit', async ({
  page,
  request
}) => {
  await page.notebook.createNew('approve.ipynb');
  await script(request, [
    {
      tool_calls: [
        { name: 'insert_cell', arguments: { source: 'print(6 * 7)' } }
      ]
    },
    {
      tool_calls: [{ name: 'run_cell', arguments: { cell_id: '{{cell_id}}' } }]
    },
    { content: 'It printed what you asked.' }
  ]);
  await ask(page, 'Multiply');
  const sidebar = page.locator(`#${SIDEBAR}`);
  const card = sidebar.getByRole('group', { name: 'Approval needed' });
  const code = card.getByRole('textbox', { name: 'Code to approve' });
  await expect(code).toHaveValue('print(6 * 7)', { timeout: 30000 });
  await code.fill('print(6 * 9)');
  await card.getByRole('button', { name: 'Run' }).click();
  await finished(page);
  await expect(
    page.locator('.jp-Notebook .jp-Cell').nth(1).locator('.jp-OutputArea')
  ).toContainText('54');
  expect(await cellSource(page, 1)).toBe('print(6 * 9)');
  const tools = (await received(request))[2].body.messages.filter(
    m => m.role === 'tool'
  );
  expect(tools[tools.length - 1].content).toContain(
    'The user edited the code before approving it.'
  );
  expect(tools[tools.length - 1].content).toContain('54');
});

test('the approval card shows the whole code, and scrolls inside when it is long', async ({
  page,
  request
}) => {
  await page.notebook.createNew('longcode.ipynb');
  // Every third line is long enough to wrap in the sidebar.
  const code = (lines: number) =>
    Array.from(
      { length: lines },
      (_, i) => `x${i} = ${i}  # ${'step '.repeat(i % 3 ? 1 : 12)}`
    ).join('\n');
  const [medium, long] = [code(14), code(120)];
  const insertAndRun = (source: string) => ({
    tool_calls: [{ name: 'insert_cell', arguments: { source, run: true } }]
  });
  await script(request, [
    insertAndRun(medium),
    insertAndRun(long),
    { content: 'Nothing ran.' }
  ]);
  await ask(page, 'Write the steps');
  const sidebar = page.locator(`#${SIDEBAR}`);
  const card = sidebar.getByRole('group', { name: 'Approval needed' });
  const box = card.getByRole('textbox', { name: 'Code to approve' });
  const sizes = () =>
    box.evaluate(node => ({
      scroll: node.scrollHeight,
      client: node.clientHeight,
      window: window.innerHeight
    }));

  // Fourteen lines, some wrapped: all of them in view, nothing to scroll.
  await expect(box).toHaveValue(medium, { timeout: 30000 });
  const whole = await sizes();
  expect(whole.scroll).toBeLessThanOrEqual(whole.client + 1);
  await card.getByRole('button', { name: 'Reject' }).click();
  await card.getByRole('button', { name: 'Send rejection' }).click();

  // 120 lines: the box scrolls, at most 60 % of the window high, and the
  // card's buttons stay in reach.
  await expect(box).toHaveValue(long, { timeout: 30000 });
  const scrolled = await sizes();
  expect(scrolled.scroll).toBeGreaterThan(scrolled.client);
  expect(scrolled.client).toBeLessThanOrEqual(scrolled.window * 0.6 + 1);
  await expect(card.getByRole('button', { name: 'Run' })).toBeInViewport();
  await card.getByRole('button', { name: 'Reject' }).click();
  await card.getByRole('button', { name: 'Send rejection' }).click();
  await finished(page);
  await expect(sidebar).toContainText('Nothing ran.');
});
