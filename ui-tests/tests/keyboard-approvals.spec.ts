/**
 * Approvals by keyboard and screen reader, and cards that say what is true:
 * the card takes the focus and is announced, Enter approves, Escape rejects
 * (then the reason), Tab goes code → Run → Reject, the focus returns to the
 * prompt; a waiting call says "awaiting your approval", a rejection is
 * "Rejected by you: …" (the model's text behind a disclosure). Then axe-core
 * finds no serious or critical problem in the sidebar in the light, dark
 * and high-contrast themes.
 */
import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@jupyterlab/galata';
import type { IJupyterLabPageFixture } from '@jupyterlab/galata';
import { script } from './scripted-model';
import { SIDEBAR, ask, finished } from './sidebar';

test.use({ kernels: null, sessions: null });

test.afterEach(async ({ page }) => {
  await page.kernel.shutdownAll();
});

const insertThenRun = (code: string, answer: string) => [
  { tool_calls: [{ name: 'insert_cell', arguments: { source: code } }] },
  { tool_calls: [{ name: 'run_cell', arguments: { cell_id: '{{cell_id}}' } }] },
  { content: answer }
];

test('keyboard only: ask → approve with Enter → answer; Escape rejects with a reason; the focus comes back to the prompt', async ({
  page,
  request
}) => {
  await page.notebook.createNew('keyboard.ipynb');
  await script(request, insertThenRun('print(6 * 7)', 'It printed 42.'));
  const sidebar = page.locator(`#${SIDEBAR}`);
  const prompt = page.getByRole('textbox', { name: 'Ask Notebook Agent' });

  await page.keyboard.press('Alt+Shift+A');
  await expect(prompt).toBeFocused();
  await page.keyboard.type('Multiply six by seven');
  await page.keyboard.press('Enter');

  // The card takes the focus, is named after what will run, and is announced.
  const card = sidebar.getByRole('group', {
    name: 'Approval needed: Run this cell?'
  });
  await expect(card).toBeFocused({ timeout: 30000 });
  await expect(card.getByRole('alert')).toHaveText(
    'Approval needed: Run this cell?'
  );
  const waiting = sidebar.locator('[data-tool="run_cell"]').first();
  await expect(waiting.locator('.jp-AgentSidebar-toolTitle')).toHaveText(
    'Run this cell'
  );
  await expect(waiting.locator('.jp-AgentSidebar-toolState')).toHaveText(
    'awaiting your approval'
  );
  await expect(
    sidebar.locator('[data-tool="insert_cell"] .jp-AgentSidebar-toolTitle')
  ).toHaveText('Insert this cell');
  await page.keyboard.press('Enter');

  await finished(page);
  await expect(sidebar).toContainText('It printed 42.');
  await expect(prompt).toBeFocused();
  await expect(waiting.locator('.jp-AgentSidebar-toolState')).toHaveText(
    /^done · \d+\.\d s$/
  );
  await expect(
    page.locator('.jp-Notebook .jp-Cell').last().locator('.jp-OutputArea')
  ).toContainText('42');

  // Second request: Tab order, then Escape → reason → Enter.
  await script(
    request,
    insertThenRun('print("never")', 'Understood, I did not run it.')
  );
  await page.keyboard.type('Print never');
  await page.keyboard.press('Enter');
  const second = sidebar.getByRole('group', {
    name: 'Approval needed: Run this cell?'
  });
  await expect(second).toBeFocused({ timeout: 30000 });
  await page.keyboard.press('Tab');
  await expect(
    second.getByRole('textbox', { name: 'Code to approve' })
  ).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(second.getByRole('button', { name: 'Run' })).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(second.getByRole('button', { name: 'Reject' })).toBeFocused();
  await page.keyboard.press('Escape');
  const reason = second.getByRole('textbox', { name: 'Reason for rejecting' });
  await expect(reason).toBeFocused();
  await page.keyboard.type('not now');
  await page.keyboard.press('Enter');

  await finished(page);
  await expect(sidebar).toContainText('Understood, I did not run it.');
  await expect(prompt).toBeFocused();
  const rejected = sidebar.locator('[data-tool="run_cell"]').last();
  await expect(rejected).toHaveAttribute('data-status', 'rejected');
  await expect(rejected).toContainText('Rejected by you: not now');
  // Neutral, not an error: the card keeps the ordinary border.
  const border = (locator: typeof rejected) =>
    locator.evaluate(node => getComputedStyle(node).borderTopColor);
  expect(await border(rejected)).toBe(await border(waiting));
  const told = rejected.getByText(/Do not retry it unchanged/);
  await expect(told).toBeHidden();
  await rejected.getByText('What the agent was told').click();
  await expect(told).toBeVisible();
});

/** Serious and critical axe-core violations inside the sidebar, as lines. */
async function axeProblems(page: IJupyterLabPageFixture): Promise<string[]> {
  // JupyterLab's <body> is 0 px tall with overflow hidden (its shell is
  // absolutely positioned): axe then takes every static or relative element
  // for clipped and checks the contrast of none. Its real height for the
  // analysis; nothing on screen moves.
  await page.evaluate(() => (document.body.style.height = '100vh'));
  const results = await new AxeBuilder({ page })
    .include(`#${SIDEBAR}`)
    .analyze();
  await page.evaluate(() => (document.body.style.height = ''));
  const lines = results.violations.map(
    v =>
      `${v.impact} ${v.id}: ${v.nodes.length} node(s), e.g. ${v.nodes[0]?.target.join(' ')} — ${v.nodes[0]?.failureSummary?.split('\n').slice(0, 2).join(' ')}`
  );
  // Contrast was checked, on the sidebar's text (not skipped as undecidable).
  const contrast = results.passes.find(rule => rule.id === 'color-contrast');
  expect(contrast?.nodes.length ?? 0).toBeGreaterThan(10);
  const undecided = results.incomplete.map(
    rule => `${rule.id} (${rule.nodes.length})`
  );
  // The whole list goes to the log (the report quotes it); only serious and critical fail.
  console.debug(
    `axe: ${results.violations.length} violation(s), color-contrast passed on ${contrast?.nodes.length} node(s), undecided: ${undecided.join(', ') || 'none'}\n${lines.join('\n')}`
  );
  return results.violations
    .filter(v => v.impact === 'serious' || v.impact === 'critical')
    .map((v, i) => lines[results.violations.indexOf(v)] ?? String(i));
}

test('axe-core: no serious or critical violation in the sidebar, light, dark and high contrast', async ({
  page,
  request
}) => {
  await page.notebook.createNew('axe.ipynb');
  await script(request, [
    ...insertThenRun('print(1 + 1)', 'It printed 2.').slice(0, 2)
  ]);
  const sidebar = await ask(page, 'Add one and one');
  await expect(
    sidebar.getByRole('group', { name: /Approval needed/ })
  ).toBeFocused({ timeout: 30000 });

  const themes: Array<[string, () => Promise<void>]> = [
    ['light', () => page.theme.setLightTheme()],
    ['dark', () => page.theme.setDarkTheme()],
    [
      'high contrast',
      () => page.theme.setTheme('JupyterLab Dark High Contrast')
    ]
  ];
  const found: Record<string, string[]> = {};
  for (const [name, apply] of themes) {
    await apply();
    console.debug(
      `theme ${name}: ${await page.evaluate(() => document.body.dataset.jpThemeName)}`
    );
    found[name] = await axeProblems(page);
  }
  expect(found).toEqual({ light: [], dark: [], 'high contrast': [] });
  expect(await page.evaluate(() => document.body.dataset.jpThemeName)).toBe(
    'JupyterLab Dark High Contrast'
  );
  await page.theme.setLightTheme();
  await sidebar.getByRole('button', { name: 'Stop' }).click();
  await finished(page);
});
