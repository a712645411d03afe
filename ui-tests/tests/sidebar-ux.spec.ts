/**
 * The sidebar for everyday use: keyboard only, code blocks that copy or
 * become cells, token cost, and the light and dark themes.
 */
import { expect, test } from '@jupyterlab/galata';
import { received, script } from './scripted-model';
import {
  cellSource,
  finished,
  openAgent,
  setAgentSettings,
  SIDEBAR
} from './sidebar';

test.use({ kernels: null, sessions: null });

test.afterEach(async ({ page }) => {
  await setAgentSettings(page, {});
  await page.kernel.shutdownAll();
});

const ANSWER = [
  'Here is the code:',
  '',
  '```python',
  'total = sum(range(10))',
  'print(total)',
  '```',
  '',
  'It prints 45.'
].join('\n');

test('keyboard only: open with Alt+Shift+A, type, Enter; an answer’s code block inserts as a cell; the cost shows', async ({
  page,
  request
}) => {
  await page.notebook.createNew('keys.ipynb');
  await page.notebook.setCell(0, 'code', 'x = 1');
  await setAgentSettings(page, { model: 'gpt-4o-mini' });
  await script(request, [{ content: ANSWER }]);

  await page.keyboard.press('Alt+Shift+A');
  const prompt = page.getByRole('textbox', { name: 'Ask Notebook Agent' });
  await expect(prompt).toBeFocused();
  await page.keyboard.type('Sum 0..9');
  await page.keyboard.press('Enter');
  await finished(page);
  const sidebar = page.locator(`#${SIDEBAR}`);
  await expect(sidebar).toContainText('It prints 45.');
  // Prices are known for gpt-4o-mini: tokens and an estimate.
  await expect(sidebar.locator('.jp-AgentSidebar-usage')).toContainText(
    /tokens · ~(<)?\$0\.\d+/
  );

  const block = sidebar.locator('.jp-AgentSidebar-codeBlock');
  await expect(block.getByRole('button', { name: 'Copy' })).toBeVisible();
  await block.getByRole('button', { name: 'Insert as cell' }).focus();
  await page.keyboard.press('Enter');
  await expect
    .poll(() => page.notebook.getCellCount(), { timeout: 10000 })
    .toBe(2);
  expect(await cellSource(page, 1)).toBe(
    'total = sum(range(10))\nprint(total)'
  );
  expect(await cellSource(page, 0)).toBe('x = 1');
});

test('theme variables only: the sidebar follows the light and the dark theme', async ({
  page,
  request
}) => {
  await page.notebook.createNew('themes.ipynb');
  await script(request, [{ content: ANSWER }]);
  const prompt = await openAgent(page);
  await prompt.fill('Show me code');
  await prompt.press('Enter');
  await finished(page);
  const sidebar = page.locator(`#${SIDEBAR}`);
  const background = () =>
    sidebar.evaluate(node => getComputedStyle(node).backgroundColor);
  const light = await background();
  if (process.env.SCREENSHOTS) {
    await page.screenshot({ path: '../docs/sidebar-light.png' });
  }
  await page.theme.setDarkTheme();
  await expect.poll(background).not.toBe(light);
  await expect(sidebar).toContainText('It prints 45.');
  if (process.env.SCREENSHOTS) {
    await page.screenshot({ path: '../docs/sidebar-dark.png' });
  }
  await page.theme.setLightTheme();
});

test('the header names a GGUF model by its name, not its file path; the tooltip and the requests keep its id', async ({
  page,
  request
}) => {
  // llama-server's id for the model it loaded: the file's path.
  const id = '/root/.cache/llama.cpp/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf';
  await page.notebook.createNew('names.ipynb');
  await setAgentSettings(page, { model: id });
  const prompt = await openAgent(page);
  const sidebar = page.locator(`#${SIDEBAR}`);
  const model = sidebar.locator('.jp-AgentSidebar-model');
  await expect(model).toHaveText('qwen2.5-coder-1.5b-instruct');
  await expect(model).toHaveAttribute('title', `Model: ${id}`);
  await script(request, [{ content: 'Hello.' }]);
  await prompt.fill('Hi');
  await prompt.press('Enter');
  await finished(page);
  const [sent] = await received(request);
  expect(sent.body.model).toBe(id);
});

test('before the first token of a server the working line says "Reading the prompt…", then "Working…"', async ({
  page,
  request
}) => {
  await page.notebook.createNew('reading.ipynb');
  const prompt = await openAgent(page);
  const sidebar = page.locator(`#${SIDEBAR}`);
  // A server that reads the prompt for 4 s before its first token, then
  // writes slowly.
  await script(request, [
    {
      content: 'A slow answer, word by word.',
      stall: 4,
      stall_after: 0,
      chunk_size: 2,
      delay: 0.3
    }
  ]);
  await prompt.fill('Hi');
  await prompt.press('Enter');
  const working = sidebar.locator('.jp-AgentSidebar-working');
  await expect(working).toHaveText(/^Reading the prompt…/);
  await expect(working).toHaveText(/^Reading the prompt… [23] s$/, {
    timeout: 5000
  });
  // Its answer has begun: working, no longer reading.
  await expect(sidebar).toContainText('A slow', { timeout: 10000 });
  await expect(working).toHaveText(/^Working…/);
  await finished(page);
  await expect(sidebar).toContainText('A slow answer, word by word.');
});

test('a DataFrame pasted into an answer keeps its columns: a block of text to copy, not a cell to insert', async ({
  page,
  request
}) => {
  await page.notebook.createNew('table.ipynb');
  const prompt = await openAgent(page);
  const sidebar = page.locator(`#${SIDEBAR}`);
  // As pandas 2 printed it, pasted between two lines of prose (small models
  // do): Markdown alone would run it into one paragraph.
  const frame = [
    '  region  units  unit_price  total_revenue',
    '0   East    297        2.50          742.5',
    '1   West    150        3.25          487.5'
  ];
  await script(request, [
    {
      content: ['Revenue per region:', ...frame, 'East earns the most.'].join(
        '\n'
      )
    }
  ]);
  await prompt.fill('Revenue per region?');
  await prompt.press('Enter');
  await finished(page);
  const block = sidebar.locator('.jp-AgentSidebar-codeBlock', {
    hasText: 'total_revenue'
  });
  await expect(block.locator('pre')).toHaveText(frame.join('\n'));
  // Its lines are not wrapped in the narrow sidebar: the block scrolls.
  expect(
    await block
      .locator('pre > code')
      .evaluate(node => getComputedStyle(node).whiteSpace)
  ).toBe('pre');
  await expect(block.getByRole('button', { name: 'Copy' })).toBeVisible();
  await expect(
    block.getByRole('button', { name: 'Insert as cell' })
  ).toHaveCount(0);
  await expect(sidebar.getByText('East earns the most.')).toBeVisible();
});

test('a DataFrame a run prints keeps its columns on the tool card (it scrolls); an error’s message wraps', async ({
  page,
  request
}) => {
  await page.notebook.createNew('card-table.ipynb');
  await setAgentSettings(page, { approvalMode: 'run-everything' });
  const prompt = await openAgent(page);
  const sidebar = page.locator(`#${SIDEBAR}`);
  const wide = [
    'region      units  unit_price  total_revenue  share_of_total',
    'East          297        2.50          742.5            0.60',
    'West          150        3.25          487.5            0.40'
  ];
  await script(request, [
    {
      tool_calls: [
        {
          name: 'run_code',
          arguments: { code: `print(${JSON.stringify(wide.join('\n'))})` }
        }
      ]
    },
    {
      tool_calls: [
        {
          name: 'run_code',
          arguments: {
            code: "raise ValueError('the month column holds Periods, ' * 4)"
          }
        }
      ]
    },
    { content: 'East earns the most.' }
  ]);
  await prompt.fill('Revenue per region?');
  await prompt.press('Enter');
  await finished(page);
  const shape = (text: string) =>
    sidebar
      .locator('.jp-AgentSidebar-toolOutput', { hasText: text })
      .evaluate(node => ({
        whiteSpace: getComputedStyle(node).whiteSpace,
        // Wider than the card: the sidebar is narrower than a row.
        wider: node.scrollWidth > node.clientWidth
      }));
  await expect(
    sidebar.locator('.jp-AgentSidebar-toolOutput', { hasText: wide[1] })
  ).toBeVisible();
  expect(await shape('share_of_total')).toEqual({
    whiteSpace: 'pre',
    wider: true
  });
  expect(await shape('ValueError')).toEqual({
    whiteSpace: 'pre-wrap',
    wider: false
  });
});

test('the transcript ends at the answer’s last line once its Markdown is rendered; a reader who scrolled up stays there', async ({
  page,
  request
}) => {
  await page.notebook.createNew('scroll.ipynb');
  const prompt = await openAgent(page);
  const sidebar = page.locator(`#${SIDEBAR}`);
  const transcript = sidebar.locator('.jp-AgentSidebar-transcript');
  // A long Markdown answer (the rendermime renders it after the item is in).
  const long = [
    '## Findings',
    '',
    ...Array.from({ length: 40 }, (_, i) => `- point ${i + 1}: a line of it`),
    '',
    'The last line of the answer.'
  ].join('\n');
  await script(request, [{ content: long }]);
  await prompt.fill('Tell me everything');
  await prompt.press('Enter');
  await finished(page);
  const last = sidebar.getByText('The last line of the answer.');
  await expect(last).toBeInViewport();
  const gap = () =>
    transcript.evaluate(
      node => node.scrollHeight - node.scrollTop - node.clientHeight
    );
  await expect.poll(gap).toBeLessThanOrEqual(24);

  // Scrolled up to read: a later change in the transcript leaves it there.
  await transcript.evaluate(node => {
    node.scrollTop = 0;
  });
  await expect.poll(gap).toBeGreaterThan(100);
  await transcript.evaluate(node => {
    node.firstElementChild?.append(document.createElement('div'));
  });
  await page.waitForTimeout(300);
  expect(
    await transcript.evaluate(node => node.scrollTop),
    'a reader who scrolled up is not pulled down'
  ).toBe(0);
});
