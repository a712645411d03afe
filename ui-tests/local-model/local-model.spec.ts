/**
 * The in-browser local model, end to end: the real Web Worker with
 * transformers.js and onnxruntime-web loads the tiny random-weight test
 * model from this Jupyter server and drives an agent turn in the sidebar.
 * Each project checks its rung (config: expectedRung); start-up runs once.
 */
import { expect, test as base } from '@jupyterlab/galata';
import type {
  IJupyterLabPageFixture,
  JupyterLabPage
} from '@jupyterlab/galata';
import { ask, finished, openAgent, setAgentSettings } from '../tests/sidebar';
import {
  MODELS_ROUTE,
  SIDEBAR,
  TINY_MODEL,
  heavyChunks,
  recordRequests,
  type IRecordedRequest,
  recording,
  startRecording,
  tinyModelSettings
} from './local-model';

const test = base.extend<{
  expectedRung: string;
  expectedWeights: string;
  answerTokens: number;
  turnTimeout: number;
  reloadCheck: boolean;
}>({
  expectedRung: ['WebAssembly (q8)', { option: true }],
  expectedWeights: ['model_quantized.onnx', { option: true }],
  answerTokens: [48, { option: true }],
  turnTimeout: [60000, { option: true }],
  reloadCheck: [true, { option: true }]
});

test.use({ kernels: null, sessions: null });

/**
 * Select the tiny model, as the Settings Editor would; retried, because
 * the registry may not hold this extension's settings yet right after load.
 */
async function selectTinyModel(
  page: IJupyterLabPageFixture,
  settings: Record<string, unknown>
): Promise<void> {
  await expect(() => setAgentSettings(page, settings)).toPass({
    timeout: 15000
  });
}

/** Whole-file downloads of the weights (not 1-byte existence checks). */
const weightDownloads = (requests: IRecordedRequest[]) =>
  requests
    .filter(r => r.url.includes(`${MODELS_ROUTE}${TINY_MODEL}/onnx/`))
    .filter(r => !r.range);
const modelRequests = (requests: IRecordedRequest[]) =>
  requests.filter(r => r.url.includes(MODELS_ROUTE));

test('loads with progress to 100 %, streams a turn on its rung, and (on WebAssembly) reuses the cache after a reload', async ({
  page,
  expectedRung,
  expectedWeights,
  answerTokens,
  turnTimeout,
  reloadCheck
}) => {
  const requests = recordRequests(page);
  await page.notebook.createNew('local.ipynb');
  await selectTinyModel(page, tinyModelSettings(answerTokens));
  const sidebar = page.locator(`#${SIDEBAR}`);
  await openAgent(page);
  await expect(sidebar).toContainText(`${TINY_MODEL} (in this browser)`);
  await startRecording(page);

  const asked = Date.now();
  await ask(page, 'Say hello.');
  await finished(page, turnTimeout);
  test.info().annotations.push({
    type: 'first turn',
    description: `${expectedRung}: load + answer in ${((Date.now() - asked) / 1000).toFixed(1)} s (limit ${turnTimeout / 1000} s)`
  });
  await expect(sidebar.getByRole('alert')).toHaveCount(0);
  const line = sidebar.locator('.jp-AgentSidebar-localModelLine');
  await expect(line).toContainText(`${TINY_MODEL} on ${expectedRung}`);
  await expect(line, await sidebar.innerText()).toContainText('tokens/s');

  const seen = await recording(page);
  expect(Math.max(...seen.progress)).toBe(100);
  expect(
    seen.lines.some(l => /Downloading tiny-llama: .* MB \(\d+ %\)/.test(l))
  ).toBe(true);
  // Random weights write junk, but they write it token by token.
  expect(seen.lengths.length).toBeGreaterThan(2);
  // One download of the weights (the dtype the rung chose), not two.
  expect(weightDownloads(requests).map(r => r.url)).toEqual([
    expect.stringMatching(new RegExp(`onnx/${expectedWeights}$`))
  ]);

  // A reload starts a new worker; the files come from the Cache API. (The
  // cache is keyed by URL whatever the rung, so the WebGPU project, where
  // a second load costs a minute of SwiftShader, leaves this to WebAssembly:
  // config reloadCheck.)
  if (!reloadCheck) {
    return;
  }
  requests.length = 0;
  await page.notebook.save();
  // The notebook comes back with the workspace (so no launcher for Galata
  // to wait for), and may ask for its kernel again.
  // (Galata's reload takes this option; the fixture's type is Playwright's.)
  await (page as unknown as JupyterLabPage).reload({ waitForIsReady: false });
  await page.locator('#jupyterlab-splash').waitFor({ state: 'detached' });
  await page
    .getByRole('dialog')
    .getByRole('button', { name: 'Select Kernel' })
    .click({ timeout: 5000 })
    .catch(() => undefined);
  await expect(
    page.getByRole('main').getByRole('tab', { name: 'local.ipynb' })
  ).toBeVisible();
  await openAgent(page);
  await ask(page, 'Say hello again.');
  await finished(page, turnTimeout);
  await expect(sidebar.getByRole('alert')).toHaveCount(0);
  await expect(line).toContainText(`${TINY_MODEL} on ${expectedRung}`);
  expect(modelRequests(requests)).toEqual([]);
});

test('Stop ends a long generation at once', async ({
  page,
  expectedRung,
  turnTimeout
}) => {
  await page.notebook.createNew('stop.ipynb');
  await selectTinyModel(page, tinyModelSettings(1000));
  const sidebar = page.locator(`#${SIDEBAR}`);
  await openAgent(page);
  await ask(page, 'Write a long story.');
  const answer = sidebar.locator('.jp-AgentSidebar-assistant').last();
  // The first token comes after the worker's start-up (on SwiftShader's
  // WebGPU every shader compiles again in this page: past 60 s on CI's
  // machine), so the wait is the rung's turn timeout.
  await expect(answer).not.toBeEmpty({ timeout: turnTimeout });
  await expect(
    sidebar.locator('.jp-AgentSidebar-localModelLine')
  ).toContainText(expectedRung);
  const stop = sidebar.getByRole('button', { name: 'Stop' });
  const started = Date.now();
  await stop.click();
  await expect(sidebar.getByRole('button', { name: 'Send' })).toBeVisible({
    timeout: 5000
  });
  const stopSeconds = (Date.now() - started) / 1000;
  const length = (await answer.textContent())?.length ?? 0;
  await page.waitForTimeout(1000);
  expect((await answer.textContent())?.length ?? 0).toBe(length);
  test.info().annotations.push({
    type: 'stop',
    description: `Send was back ${stopSeconds.toFixed(2)} s after Stop`
  });
  expect(stopSeconds).toBeLessThan(3);
});

test.describe('start-up', () => {
  test.use({ autoGoto: false });

  test('JupyterLab starts without transformers.js, onnxruntime or their wasm @device-independent', async ({
    page
  }) => {
    const heavy = heavyChunks();
    expect(heavy.some(name => name.endsWith('.wasm'))).toBe(true);
    const requests = recordRequests(page);
    const requested = () =>
      heavy.filter(name =>
        requests.some(r => new URL(r.url).pathname.endsWith(`/${name}`))
      );
    await page.goto();
    await page.notebook.createNew('startup.ipynb');
    await selectTinyModel(page, tinyModelSettings(8));
    await openAgent(page);
    await page.waitForTimeout(1000);
    expect(requested()).toEqual([]);

    // Using the local model is what loads them.
    await ask(page, 'Hi');
    await expect(
      page.locator(`#${SIDEBAR} .jp-AgentSidebar-localModelLine`)
    ).toContainText(`${TINY_MODEL} on`, { timeout: 60000 });
    await finished(page);
    expect(requested().length).toBeGreaterThan(0);
  });
});
