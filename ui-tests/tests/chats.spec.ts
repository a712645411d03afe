/**
 * Chats are kept on the server per notebook: a reload finds the chat, each
 * notebook has its own, earlier chats reopen from History, and a chat
 * exports as markdown.
 */
import { expect, test } from '@jupyterlab/galata';
import { readFile } from 'fs/promises';
import { script } from './scripted-model';
import { SIDEBAR, ask, finished, openAgent, reloadToNotebook } from './sidebar';

test.use({ kernels: null, sessions: null });

test.afterEach(async ({ page }) => {
  await page.kernel.shutdownAll();
});

test('each notebook has its own chat; History reopens one; a reload keeps it; Export downloads markdown', async ({
  page,
  request,
  tmpPath
}) => {
  const sidebar = page.locator(`#${SIDEBAR}`);
  // Names of this attempt's own: a retry runs in the same folder, and the
  // chats of the attempt before stay on the server.
  const attempt = test.info().retry;
  const [first, second] = [`first-${attempt}.ipynb`, `second-${attempt}.ipynb`];
  await page.notebook.createNew(first);
  await script(request, [{ content: 'The answer is 42.' }]);
  await ask(page, 'What is the answer?');
  await finished(page);
  await expect(sidebar).toContainText('The answer is 42.');

  // Another notebook: its own (empty) chat; back to the first: its chat again.
  await page.contents.uploadContent(
    JSON.stringify({
      cells: [],
      metadata: { kernelspec: { name: 'python3', display_name: 'Python 3' } },
      nbformat: 4,
      nbformat_minor: 5
    }),
    'text',
    `${tmpPath}/${second}`
  );
  await page.notebook.openByPath(`${tmpPath}/${second}`);
  await expect(sidebar).not.toContainText('What is the answer?');
  await script(request, [{ content: 'Second notebook here.' }]);
  await ask(page, 'Hello second');
  await finished(page);
  await page.notebook.activate(first);
  await expect(sidebar).toContainText('The answer is 42.');
  await expect(sidebar).not.toContainText('Second notebook here.');

  // New chat, then History brings the earlier one back.
  await sidebar.getByRole('button', { name: 'New chat' }).click();
  await expect(sidebar).not.toContainText('The answer is 42.');
  await script(request, [{ content: 'A new topic.' }]);
  await ask(page, 'Another question');
  await finished(page);
  await sidebar.getByRole('button', { name: 'History' }).click();
  const history = sidebar.getByRole('list', { name: 'Earlier chats' });
  await expect(history.getByRole('button')).toHaveCount(2);
  await history.getByRole('button', { name: 'What is the answer?' }).click();
  await expect(sidebar).toContainText('The answer is 42.');
  await expect(sidebar).not.toContainText('A new topic.');

  // Unsaved notebooks would make the browser ask before leaving.
  await page.evaluate(() =>
    window.jupyterapp.commands.execute('docmanager:save-all')
  );
  await reloadToNotebook(page);
  // The restored layout may already show the sidebar.
  const prompt = page.getByRole('textbox', { name: 'Ask Notebook Agent' });
  await page.waitForTimeout(1000);
  if (!(await prompt.isVisible())) {
    await openAgent(page);
  }
  await expect(sidebar).toContainText('What is the answer?', {
    timeout: 20000
  });
  await expect(sidebar).toContainText('The answer is 42.');
  await expect(sidebar).not.toContainText('A new topic.');

  const download = page.waitForEvent('download');
  await sidebar.getByRole('button', { name: 'Export' }).click();
  const file = await (await download).path();
  const markdown = await readFile(file!, 'utf8');
  expect(markdown).toContain('# What is the answer?');
  expect(markdown).toContain('The answer is 42.');
});

test('a notebook renamed while open keeps its chats: the header, History and the saved chats follow the new name', async ({
  page,
  request,
  tmpPath
}) => {
  const sidebar = page.locator(`#${SIDEBAR}`);
  // Names of this attempt's own: a retry runs in the same folder, and the
  // chats of the attempt before stay on the server.
  const attempt = test.info().retry;
  const [before, after] = [`before-${attempt}.ipynb`, `after-${attempt}.ipynb`];
  await page.notebook.createNew(before);
  await script(request, [{ content: 'First chat.' }]);
  await ask(page, 'The first question');
  await finished(page);
  await sidebar.getByRole('button', { name: 'New chat' }).click();
  await script(request, [{ content: 'Second chat.' }]);
  await ask(page, 'The second question');
  await finished(page);

  // Renamed as the file browser does it (the contents API): the open
  // notebook's context follows, and so does the chat.
  await page.evaluate(
    ([from, to]) => window.jupyterapp.serviceManager.contents.rename(from, to),
    [`${tmpPath}/${before}`, `${tmpPath}/${after}`]
  );
  await expect(
    page.getByRole('main').getByRole('tab', { name: after })
  ).toBeVisible();
  await expect(sidebar.locator('.jp-AgentSidebar-notebookLine')).toHaveText(
    `Chat of ${after}`
  );
  await expect(sidebar).toContainText('Second chat.');
  // Both chats are filed under the new name, on the server.
  const titlesOf = (notebook: string) =>
    page.evaluate(async path => {
      const response = await fetch(
        `/notebook-agent/chats?notebook=${encodeURIComponent(path)}`
      );
      const body = (await response.json()) as {
        chats: Array<{ title: string }>;
      };
      return body.chats.map(chat => chat.title).sort();
    }, notebook);
  await expect
    .poll(() => titlesOf(`${tmpPath}/${after}`))
    .toEqual(['The first question', 'The second question']);
  expect(await titlesOf(`${tmpPath}/${before}`)).toEqual([]);
  await sidebar.getByRole('button', { name: 'History' }).click();
  await expect(
    sidebar.getByRole('list', { name: 'Earlier chats' }).getByRole('button')
  ).toHaveCount(2);
});
