/**
 * Chats the server cannot list or save, in the real UI: switching to a
 * notebook whose chats cannot be listed starts a new chat there (never the
 * previous notebook's), and a chat that cannot be saved says so, with
 * Retry. These tests route requests, so each gets a page of its own
 * (Galata's), not the shared one of ./shared-page.ts.
 */
import { expect, test, type IJupyterLabPageFixture } from '@jupyterlab/galata';
import { script } from './scripted-model';
import { SIDEBAR, ask, finished } from './sidebar';

test.use({ kernels: null, sessions: null });

// The kernels are shut down through the REST API: Galata's shutdownAll
// timed out now and then here, waiting in the page with two notebooks open.
test.afterEach(async ({ request }) => {
  const kernels = (await (await request.get('/api/kernels')).json()) as Array<{
    id: string;
  }>;
  for (const { id } of kernels) {
    await request.delete(`/api/kernels/${id}`);
  }
});

const sidebar = (page: IJupyterLabPageFixture) => page.locator(`#${SIDEBAR}`);

test('switching to a notebook whose chats cannot be listed starts a new chat there, never the previous notebook’s', async ({
  page,
  request,
  tmpPath
}) => {
  await page.notebook.createNew('first.ipynb');
  await script(request, [{ content: 'Hello from the first notebook.' }]);
  const chat = await ask(page, 'Greet the first notebook');
  await finished(page);
  await expect(chat).toContainText('Hello from the first notebook.');
  // The server stops answering the list of a notebook's chats.
  await page.route(
    url =>
      url.pathname.endsWith('/notebook-agent/chats') &&
      url.searchParams.has('notebook'),
    route => route.abort('connectionfailed')
  );
  // The user opens another notebook (one already on disk, as most are).
  await page.contents.uploadContent(
    JSON.stringify({
      cells: [],
      metadata: { kernelspec: { name: 'python3', display_name: 'Python 3' } },
      nbformat: 4,
      nbformat_minor: 5
    }),
    'text',
    `${tmpPath}/second.ipynb`
  );
  await page.evaluate(async path => {
    await window.jupyterapp.commands.execute('docmanager:open', { path });
  }, `${tmpPath}/second.ipynb`);
  await expect(
    page.getByRole('main').getByRole('tab', { name: 'second.ipynb' })
  ).toBeVisible();
  await expect(chat).not.toContainText('Greet the first notebook');
  await expect(chat.locator('.jp-AgentSidebar-empty')).toBeVisible();
});

test('a chat the server cannot save says "Chat not saved" with Retry, until a save succeeds', async ({
  page,
  request
}) => {
  await page.notebook.createNew('unsaved.ipynb');
  let refuse = true;
  await page.route('**/notebook-agent/chats/**', route =>
    refuse && route.request().method() === 'PUT'
      ? route.fulfill({ status: 500, body: '{"message": "disk full"}' })
      : route.continue()
  );
  await script(request, [{ content: 'Hello.' }]);
  await ask(page, 'Say hello');
  await finished(page);
  const line = sidebar(page).getByRole('alert').filter({
    hasText: 'Chat not saved'
  });
  await expect(line).toBeVisible({ timeout: 10000 });
  refuse = false;
  await line.getByRole('button', { name: 'Retry' }).click();
  await expect(line).toHaveCount(0);
});
