/**
 * The sidebar at JupyterLab's narrowest side panel (250 px, what a
 * 1000 px window gives it): nothing is cut off (a long model name is
 * truncated with a tooltip, the notice's command line wraps, the prompt's
 * placeholder fits) and axe-core finds nothing serious. Where the window
 * has room, the sidebar opens wider (320 px). On the server with no
 * endpoint: its notice is the longest text the sidebar shows unasked.
 */
import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@jupyterlab/galata';
import { SIDEBAR, openAgent } from './sidebar';

test.use({
  kernels: null,
  sessions: null,
  viewport: { width: 1000, height: 720 }
});

/** Elements whose content is cut: wider than their box and not scrollable, unless cut with an ellipsis and a tooltip. */
function clippedIn(root: Element): string[] {
  const problems: string[] = [];
  const edge = root.getBoundingClientRect().right;
  for (const node of Array.from(root.querySelectorAll<HTMLElement>('*'))) {
    const style = getComputedStyle(node);
    if (!node.offsetParent || style.visibility === 'hidden') {
      continue;
    }
    const scrolls = ['auto', 'scroll'].includes(style.overflowX);
    const truncated =
      style.textOverflow === 'ellipsis' && node.title.trim().length > 0;
    const overflows = node.scrollWidth > node.clientWidth + 1;
    const pastEdge = node.getBoundingClientRect().right > edge + 1;
    if ((overflows && !scrolls && !truncated) || pastEdge) {
      problems.push(
        `${node.tagName.toLowerCase()}.${node.className} "${(node.textContent ?? '').slice(0, 40)}"`
      );
    }
  }
  return problems;
}

test('at 250 px nothing is cut, axe finds nothing serious; with room the sidebar opens at 320 px', async ({
  page
}) => {
  const prompt = await openAgent(page);
  const sidebar = page.locator(`#${SIDEBAR}`);
  await expect(
    sidebar.locator('.jp-AgentSidebar-notice').first()
  ).toContainText('OPENAI_BASE_URL=');
  expect(Math.round((await sidebar.boundingBox())!.width)).toBeLessThanOrEqual(
    251
  );

  // The model name: whole, or cut with a tooltip that has it whole.
  const model = sidebar.locator('.jp-AgentSidebar-model');
  await expect(model).toHaveAttribute('title', /\(in this browser\)/);
  expect(
    await model.evaluate(node => node.getBoundingClientRect().width)
  ).toBeGreaterThan(60);
  // The command line wraps inside the notice.
  const command = sidebar.locator('.jp-AgentSidebar-notice pre').first();
  expect(
    await command.evaluate(node => node.scrollWidth <= node.clientWidth)
  ).toBe(true);
  // The placeholder fits the prompt box (laid out as the box lays it out).
  const fits = await prompt.evaluate((node: HTMLTextAreaElement) => {
    const style = getComputedStyle(node);
    const copy = document.createElement('div');
    copy.textContent = node.placeholder;
    Object.assign(copy.style, {
      position: 'absolute',
      visibility: 'hidden',
      width: `${node.clientWidth}px`,
      padding: style.padding,
      font: style.font,
      lineHeight: style.lineHeight,
      whiteSpace: 'pre-wrap',
      overflowWrap: 'break-word',
      boxSizing: 'border-box'
    });
    document.body.appendChild(copy);
    const height = copy.getBoundingClientRect().height;
    copy.remove();
    return height <= node.clientHeight;
  });
  expect(fits).toBe(true);
  expect(await sidebar.evaluate(clippedIn)).toEqual([]);

  // axe-core inside the sidebar: no serious or critical violation (the
  // body's real height first: see keyboard-approvals.spec.ts).
  await page.evaluate(() => (document.body.style.height = '100vh'));
  const results = await new AxeBuilder({ page })
    .include(`#${SIDEBAR}`)
    .analyze();
  await page.evaluate(() => (document.body.style.height = ''));
  const contrast = results.passes.find(rule => rule.id === 'color-contrast');
  expect(contrast?.nodes.length ?? 0).toBeGreaterThan(5);
  expect(
    results.violations
      .filter(v => v.impact === 'serious' || v.impact === 'critical')
      .map(v => `${v.id}: ${v.nodes[0]?.target.join(' ')}`)
  ).toEqual([]);

  // A wider window: reopened, the sidebar takes 320 px.
  await page.setViewportSize({ width: 1400, height: 720 });
  await page.evaluate(() =>
    (
      window.jupyterapp.shell as unknown as { collapseRight: () => void }
    ).collapseRight()
  );
  await expect(sidebar).toBeHidden();
  await openAgent(page);
  await expect
    .poll(async () => Math.round((await sidebar.boundingBox())!.width))
    .toBeGreaterThanOrEqual(319);
});
