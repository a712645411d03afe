/**
 * The walk (opt-in): the product's user paths in Debian's Chromium against a
 * real small model, as a user with llama.cpp's `llama-server` on port 8080
 * meets them — ask, follow up, Fix This Cell, Generate notebook, a reload
 * mid-run (walk/real-model-walk.spec.ts). It records what happened
 * (screenshots and one JSON line a step in WALK_OUT) and fails only for
 * harness problems, never for the model's answers. Not part of any suite.
 *
 *   llama-server -m qwen2.5-coder-1.5b-instruct-q4_k_m.gguf --alias qwen2.5-coder-1.5b-instruct \
 *     --host 127.0.0.1 --port 8080 --jinja -c 16384
 *   cd ui-tests && npx playwright test -c playwright.walk.config.js
 *
 * Start llama-server afresh before each walk: its prompt cache makes a greedy
 * answer depend on the requests it served before (docs/evaluation.md).
 *
 * Its own Jupyter server (port WALK_PORT, 8890) in a fresh temporary root
 * folder (the spec writes sales.csv there), with the endpoint configured the
 * way README.md tells a user to: OPENAI_BASE_URL and NOTEBOOK_AGENT_MODEL.
 *
 * Environment:
 *   WALK_BASE_URL    the endpoint (http://127.0.0.1:8080/v1)
 *   WALK_MODEL       the model id its /v1/models lists (qwen2.5-coder-1.5b-instruct)
 *   WALK_OUT         screenshots and walk.jsonl (/tmp/walk)
 *   WALK_PORT        the Jupyter server's port (8890)
 *   WALK_BUDGET_MIN  the whole walk's time, in minutes (15); steps are cut short to fit
 *   WALK_SCRIPTED=1  the harness check: no model, the repository's scripted model
 *                    server (tests/scripted_model_server.py, port WALK_SCRIPTED_PORT,
 *                    8767) plays pre-written turns for each step
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const baseConfig = require('@jupyterlab/galata/lib/playwright-config');
const { chromiumLaunchOptions } = require('./chromium');

const PORT = Number(process.env.WALK_PORT ?? 8890);
const SCRIPTED = ['1', 'true', 'yes'].includes(
  (process.env.WALK_SCRIPTED ?? '').toLowerCase()
);
const SCRIPTED_PORT = Number(process.env.WALK_SCRIPTED_PORT ?? 8767);
const SCRIPTED_ROOT = `http://127.0.0.1:${SCRIPTED_PORT}`;
const BASE_URL =
  process.env.WALK_BASE_URL ??
  (SCRIPTED ? `${SCRIPTED_ROOT}/v1` : 'http://127.0.0.1:8080/v1');
const MODEL =
  process.env.WALK_MODEL ??
  (SCRIPTED ? 'scripted-model' : 'qwen2.5-coder-1.5b-instruct');
const BUDGET_MIN = Number(process.env.WALK_BUDGET_MIN ?? 15);

// The server's root folder: made once, by the first process that loads this
// file (Playwright's runner); its workers inherit it through the environment.
if (!process.env.WALK_ROOT) {
  process.env.WALK_ROOT = fs.mkdtempSync(
    path.join(os.tmpdir(), 'notebook-agent-walk-')
  );
}
// What the spec reads (workers inherit the runner's environment).
process.env.WALK_RESOLVED_BASE_URL = BASE_URL;
process.env.WALK_RESOLVED_MODEL = MODEL;
if (SCRIPTED) {
  process.env.WALK_SCRIPTED_ROOT = SCRIPTED_ROOT;
}

const jupyter = {
  // No key: llama-server needs none, and one meant for another endpoint
  // must not go to it.
  command: `env -u OPENAI_API_KEY jupyter lab --config jupyter_server_test_config.py --port ${PORT}`,
  url: `http://localhost:${PORT}/lab`,
  timeout: 180000,
  reuseExistingServer: false,
  env: {
    OPENAI_BASE_URL: BASE_URL,
    NOTEBOOK_AGENT_MODEL: MODEL,
    // Galata's server configuration takes its root folder from here.
    JUPYTERLAB_GALATA_ROOT_DIR: process.env.WALK_ROOT
  }
};

module.exports = {
  ...baseConfig,
  testDir: './walk',
  // The walk's own budget, plus page loads, screenshots and the reload.
  timeout: (BUDGET_MIN * 60 + 600) * 1000,
  retries: 0,
  workers: 1,
  reporter: [['list']],
  use: {
    ...baseConfig.use,
    baseURL: `http://localhost:${PORT}`,
    headless: true,
    video: 'off',
    trace: 'off',
    launchOptions: chromiumLaunchOptions()
  },
  projects: [{ name: 'walk' }],
  webServer: SCRIPTED
    ? [
        {
          command: `python ../tests/scripted_model_server.py --port ${SCRIPTED_PORT}`,
          url: `${SCRIPTED_ROOT}/v1/models`,
          reuseExistingServer: false
        },
        jupyter
      ]
    : [jupyter]
};
