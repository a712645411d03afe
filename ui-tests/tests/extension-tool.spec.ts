/**
 * Another extension adds a tool: ui-tests/test-extension registers
 * `count_words` through INotebookAgent. The model calls it, the user
 * approves it (its kind is "run", its card has its own title), and the
 * model's next request carries its result.
 */
import { expect, test } from './shared-page';
import { received, script } from './scripted-model';
import { SIDEBAR, ask, finished } from './sidebar';

test.use({ kernels: null, sessions: null });

test.afterEach(async ({ page }) => {
  await page.kernel.shutdownAll();
});

test("another extension's tool: offered to the model, approved per its kind, its result in the next request", async ({
  page,
  request
}) => {
  await page.notebook.createNew('words.ipynb');
  await script(request, [
    {
      tool_calls: [
        { name: 'count_words', arguments: { text: 'one two three four' } }
      ]
    },
    { content: 'The text has four words.' }
  ]);
  await ask(page, 'How many words are in "one two three four"?');
  const sidebar = page.locator(`#${SIDEBAR}`);
  const card = sidebar.getByRole('group', { name: 'Approval needed' });
  await expect(card).toContainText('Count the words of this text?', {
    timeout: 30000
  });
  // The call holds no code: the card shows what the tool will be given.
  await expect(card.getByLabel('Arguments')).toContainText(
    '"text": "one two three four"'
  );
  await card.getByRole('button', { name: 'Run' }).click();
  await finished(page);
  await expect(sidebar).toContainText('The text has four words.');

  const requests = await received(request);
  expect(requests).toHaveLength(2);
  const offered = (
    requests[0].body as unknown as {
      tools: Array<{ function: { name: string } }>;
    }
  ).tools.map(tool => tool.function.name);
  expect(offered).toContain('count_words');
  expect(offered).toContain('run_cell');
  const tools = requests[1].body.messages.filter(m => m.role === 'tool');
  expect(tools).toHaveLength(1);
  expect(tools[0].content).toBe(
    'The text has 4 words (counted by notebook-agent-test-tool).'
  );
});

test('a rejected call of that tool does not run it, and the model hears why', async ({
  page,
  request
}) => {
  await page.notebook.createNew('words-rejected.ipynb');
  await script(request, [
    { tool_calls: [{ name: 'count_words', arguments: { text: 'a b' } }] },
    { content: 'Understood.' }
  ]);
  await ask(page, 'Count the words of "a b"');
  const card = page
    .locator(`#${SIDEBAR}`)
    .getByRole('group', { name: 'Approval needed' });
  await expect(card).toContainText('Count the words of this text?', {
    timeout: 30000
  });
  await card.getByRole('button', { name: 'Reject' }).click();
  await card.getByRole('textbox', { name: 'Reason for rejecting' }).fill('no');
  await card.getByRole('button', { name: 'Send rejection' }).click();
  await finished(page);
  const tools = (await received(request))[1].body.messages.filter(
    m => m.role === 'tool'
  );
  expect(tools[0].content).toContain('The user rejected this count_words call');
  expect(tools[0].content).not.toContain('counted by');
});
