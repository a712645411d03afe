/**
 * Playwright configuration for the browser security suite (issue #9):
 * XSS payloads in every surface of the sidebar and the notebook, keys kept
 * out of files, logs, storage and responses, and prompt injection.
 *
 * Its own Jupyter server on port 8892 and scripted model server on 8766, so
 * it runs beside the main UI suite (8888-8890, 8765). Everything the server
 * writes (its root, data dir with the key store and chats, user settings,
 * workspaces, and its log) goes under one run directory, which the key test
 * scans afterwards.
 *
 *   cd ui-tests && npx playwright test -c playwright.security.config.js
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const baseConfig = require('@jupyterlab/galata/lib/playwright-config');
const { chromiumLaunchOptions } = require('./chromium');

const PORT = 8892;
const MODEL_PORT = 8766;
/** The key the server has in its environment (never shown to the browser). */
const SERVER_KEY = 'sk-security-server-env-key-5c1e7d0a9b';

// The config is loaded again in every worker: the runner creates the run
// directory once and hands its path to the workers through the environment.
if (!process.env.NOTEBOOK_AGENT_SECURITY_DIR) {
  const dir = path.join(os.tmpdir(), 'notebook-agent-security');
  fs.rmSync(dir, { recursive: true, force: true });
  for (const sub of ['root', 'data', 'settings', 'workspaces', 'outside']) {
    fs.mkdirSync(path.join(dir, sub), { recursive: true });
  }
  process.env.NOTEBOOK_AGENT_SECURITY_DIR = dir;
}
const RUN_DIR = process.env.NOTEBOOK_AGENT_SECURITY_DIR;
process.env.NOTEBOOK_AGENT_SECURITY_MODEL_PORT = String(MODEL_PORT);
process.env.NOTEBOOK_AGENT_SECURITY_SERVER_KEY = SERVER_KEY;

module.exports = {
  ...baseConfig,
  testDir: './security',
  timeout: 120000,
  retries: 0,
  workers: 1,
  reporter: [['list']],
  use: {
    ...baseConfig.use,
    baseURL: `http://localhost:${PORT}`,
    video: 'off',
    trace: 'off',
    screenshot: 'only-on-failure',
    launchOptions: chromiumLaunchOptions()
  },
  webServer: [
    {
      command: `python ../tests/scripted_model_server.py --port ${MODEL_PORT}`,
      url: `http://127.0.0.1:${MODEL_PORT}/v1/models`,
      reuseExistingServer: false
    },
    {
      // The log is captured to a file: the key test reads every line of it.
      command: `jupyter lab --config jupyter_server_security_config.py --debug > "${path.join(RUN_DIR, 'server.log')}" 2>&1`,
      url: `http://localhost:${PORT}/lab`,
      timeout: 120000,
      reuseExistingServer: false,
      env: {
        OPENAI_BASE_URL: `http://127.0.0.1:${MODEL_PORT}/v1`,
        OPENAI_API_KEY: SERVER_KEY,
        NOTEBOOK_AGENT_MODEL: 'scripted-model',
        JUPYTER_DATA_DIR: path.join(RUN_DIR, 'data'),
        JUPYTERLAB_SETTINGS_DIR: path.join(RUN_DIR, 'settings'),
        JUPYTERLAB_WORKSPACES_DIR: path.join(RUN_DIR, 'workspaces'),
        JUPYTERLAB_GALATA_ROOT_DIR: path.join(RUN_DIR, 'root'),
        NOTEBOOK_AGENT_SECURITY_DIR: RUN_DIR,
        NOTEBOOK_AGENT_SECURITY_MODEL_PORT: String(MODEL_PORT)
      }
    }
  ]
};
