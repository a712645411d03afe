/**
 * Local model servers without configuration: the Jupyter server (no
 * endpoint configured) looks for model servers on its loopback ports 8768
 * and 8769. With none there the in-browser model is the fallback; a server
 * started later is found when the user looks again, offered in the provider
 * picker ("Found … on this machine — 1 model") and answers through the
 * proxy; opening the picker looks again.
 */
import { expect, test } from '@jupyterlab/galata';
import type { APIRequestContext } from '@playwright/test';
import { spawn, type ChildProcess } from 'child_process';
import * as path from 'path';
import { receivedAt, scriptAt } from '../tests/scripted-model';
import { SIDEBAR, ask, finished, openAgent } from '../tests/sidebar';

const SCRIPTED_SERVER = path.join(
  __dirname,
  '..',
  '..',
  'tests',
  'scripted_model_server.py'
);

const running: ChildProcess[] = [];

/** Start a scripted model server on `port`; resolves once it answers. */
async function startModelServer(
  request: APIRequestContext,
  port: number
): Promise<ChildProcess> {
  const child = spawn('python', [SCRIPTED_SERVER, '--port', String(port)], {
    stdio: 'ignore'
  });
  running.push(child);
  await expect
    .poll(
      async () =>
        (
          await request
            .get(`http://127.0.0.1:${port}/v1/models`)
            .catch(() => null)
        )?.ok() ?? false,
      { timeout: 30000 }
    )
    .toBe(true);
  return child;
}

async function stopModelServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return;
  }
  const exited = new Promise(resolve => child.once('exit', resolve));
  // SIGKILL: a test worker's children may inherit an ignored SIGTERM.
  child.kill('SIGKILL');
  await exited;
}

test.use({ kernels: null, sessions: null });

test.afterEach(async ({ page }) => {
  for (const child of running.splice(0)) {
    await stopModelServer(child);
  }
  await page.kernel.shutdownAll();
});

test('a model server started on this machine is found, offered and answers; the picker looks again', async ({
  page,
  request
}) => {
  // Offline, as this machine is (the hub's first check fails at once).
  await page
    .context()
    .route(/^https:\/\/huggingface\.co\/.*\/config\.json$/, route =>
      route.abort()
    );
  await page.notebook.createNew('discovery.ipynb');
  await openAgent(page);
  const sidebar = page.locator(`#${SIDEBAR}`);

  // Nothing listens on the ports and the hub can't be reached: the offline
  // notice, which offers looking for a local server again too.
  const offline = sidebar.getByText(/Can.t reach huggingface\.co/);
  await expect(offline).toBeVisible();
  await expect(
    sidebar.getByText(/No model server .* answers on the Jupyter server/)
  ).toBeVisible();

  // The user starts a model server and asks to look again.
  await startModelServer(request, 8768);
  await sidebar.getByRole('button', { name: 'Look again' }).click();
  const picker = sidebar.getByRole('combobox', { name: 'Provider' });
  await expect(picker).toHaveValue('local-8768');
  await expect(
    sidebar.getByText(
      'Found an OpenAI-compatible server on port 8768 on this machine — 1 model'
    )
  ).toBeVisible();
  await expect(offline).toHaveCount(0);

  // A question is answered through it, by the proxy, with no key.
  await scriptAt('http://127.0.0.1:8768', request, [
    { content: 'Answered by **the local server**.' }
  ]);
  await ask(page, 'Who answers?');
  await finished(page);
  await expect(sidebar.locator('.jp-AgentSidebar-assistant strong')).toHaveText(
    'the local server'
  );
  const [asked] = await receivedAt('http://127.0.0.1:8768', request);
  expect(asked.body.model).toBe('scripted-model');
  expect(asked.headers.authorization).toBeUndefined();

  // A second server starts: opening the picker looks again and offers both.
  const second = await startModelServer(request, 8769);
  await picker.focus();
  await expect(picker.locator('option')).toHaveText([
    'local-8768',
    'local-8769'
  ]);
  await picker.blur();

  // It stops: the next look drops it.
  await stopModelServer(second);
  await picker.focus();
  await expect(picker.locator('option')).toHaveText(['local-8768']);
});
