/**
 * A server with two provider profiles: the sidebar picks one per chat, and a
 * key typed in the sidebar is stored on the server and used by the proxy,
 * never kept in the browser or the notebook.
 */
import { expect, test } from '@jupyterlab/galata';
import { received, script } from './scripted-model';
import { ask, finished, setAgentSettings } from './sidebar';

test.use({ kernels: null, sessions: null });

test.afterEach(async ({ page }) => {
  await setAgentSettings(page, {});
  await page.kernel.shutdownAll();
});

test('the provider picker routes requests, and a typed key reaches only the server', async ({
  page,
  request
}) => {
  await page.notebook.createNew('providers.ipynb');
  await script(request, [{ content: 'from alpha' }]);
  const sidebar = await ask(page, 'Hello alpha');
  await finished(page);
  expect((await received(request))[0].body.model).toBe('alpha-model');

  // The provider's models, from its /models: pick another one.
  const models = sidebar.getByRole('combobox', { name: 'Model' });
  await expect(models).toHaveValue('alpha-model');
  await models.selectOption('alpha-large');
  await script(request, [{ content: 'from alpha large' }]);
  await ask(page, 'Hello large');
  await finished(page);
  expect((await received(request))[0].body.model).toBe('alpha-large');

  const picker = sidebar.getByRole('combobox', { name: 'Provider' });
  await expect(picker).toHaveValue('alpha');
  // alpha is a key-less local endpoint (loopback, no key configured): no key to set.
  await expect(
    sidebar.getByRole('button', { name: 'Set API key…' })
  ).toHaveCount(0);
  await picker.selectOption('beta');
  await expect(picker).toHaveValue('beta');

  // Give beta a key through the sidebar.
  const secret = 'sk-typed-by-the-user-0123456789';
  await sidebar.getByRole('button', { name: 'Set API key…' }).click();
  const dialog = page.locator('.jp-Dialog');
  await dialog.locator('input[type="password"]').fill(secret);
  await dialog.getByRole('button', { name: 'OK' }).click();
  await expect(sidebar.getByText('key set on the server')).toBeVisible();

  await script(request, [{ content: 'from beta' }]);
  await ask(page, 'Hello beta');
  await finished(page);
  const [beta] = await received(request);
  expect(beta.body.model).toBe('beta-model');
  expect(beta.headers.authorization).toBe(`Bearer ${secret}`);

  // The key is nowhere in the browser's storage, and not in the page's answers from /config.
  const storage = await page.evaluate(() =>
    JSON.stringify({ ...localStorage, ...sessionStorage })
  );
  expect(storage).not.toContain(secret);
  const config = await page.evaluate(async () =>
    (await fetch('/notebook-agent/config')).text()
  );
  expect(config).not.toContain(secret);
  expect(config).toContain('"key_source": "user"');

  // The choice belongs to the chat: a settings change applies to new chats.
  await setAgentSettings(page, { provider: 'alpha', model: '' });
  await script(request, [{ content: 'still beta' }]);
  await ask(page, 'Which provider?');
  await finished(page);
  expect((await received(request))[0].body.model).toBe('beta-model');
  await sidebar.getByRole('button', { name: 'New chat' }).click();
  await expect(picker).toHaveValue('alpha');
  await script(request, [{ content: 'from alpha again' }]);
  await ask(page, 'And now?');
  await finished(page);
  expect((await received(request))[0].body.model).toBe('alpha-model');
});
