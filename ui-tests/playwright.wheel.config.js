/**
 * Playwright configuration for the installed-wheel round trip
 * (scripts/test-wheel.sh): the wheel installed in a virtual environment of
 * its own (NOTEBOOK_AGENT_WHEEL_VENV) with no Node on PATH
 * (NOTEBOOK_AGENT_WHEEL_PATH), served by JupyterLab or Notebook 7
 * (NOTEBOOK_AGENT_WHEEL_APP: `lab` or `notebook`). Plain Playwright, not
 * Galata: Galata's page helpers follow the current JupyterLab, and this run
 * is on older ones. Its own ports (8941, model 8943), so it cannot clash
 * with the other suites.
 *
 *   NOTEBOOK_AGENT_WHEEL_VENV=… NOTEBOOK_AGENT_WHEEL_APP=lab \
 *     npx playwright test -c playwright.wheel.config.js
 */
const path = require('path');
const { chromiumLaunchOptions } = require('./chromium');

const PORT = 8941;
const MODEL_PORT = 8943;
const venv = process.env.NOTEBOOK_AGENT_WHEEL_VENV;
const app = process.env.NOTEBOOK_AGENT_WHEEL_APP || 'lab';
const runDir = process.env.NOTEBOOK_AGENT_WHEEL_DIR;
if (!venv || !runDir || !['lab', 'notebook'].includes(app)) {
  throw new Error(
    'Set NOTEBOOK_AGENT_WHEEL_VENV, NOTEBOOK_AGENT_WHEEL_DIR and NOTEBOOK_AGENT_WHEEL_APP (lab or notebook): scripts/test-wheel.sh does.'
  );
}
process.env.NOTEBOOK_AGENT_WHEEL_MODEL_ROOT = `http://127.0.0.1:${MODEL_PORT}`;

/** The server's environment: the venv only, nothing of this checkout. */
const serverEnv = {
  PATH: process.env.NOTEBOOK_AGENT_WHEEL_PATH || process.env.PATH,
  HOME: process.env.HOME,
  // Nothing from this machine's Jupyter set-up (config, kernels, settings).
  JUPYTER_CONFIG_DIR: path.join(runDir, 'config'),
  JUPYTER_DATA_DIR: path.join(runDir, 'data'),
  JUPYTERLAB_SETTINGS_DIR: path.join(runDir, 'settings'),
  JUPYTERLAB_WORKSPACES_DIR: path.join(runDir, 'workspaces'),
  OPENAI_BASE_URL: `http://127.0.0.1:${MODEL_PORT}/v1`,
  OPENAI_API_KEY: 'sk-wheel-test-key-kept-on-server',
  NOTEBOOK_AGENT_MODEL: 'scripted-model'
};

module.exports = {
  testDir: './wheel',
  timeout: 120000,
  // One retry for timing flakes on shared cores; listed as flaky when used.
  retries: 1,
  workers: 1,
  reporter: [['list']],
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    video: 'off',
    trace: 'off',
    screenshot: 'only-on-failure',
    launchOptions: chromiumLaunchOptions()
  },
  outputDir: path.join(runDir, 'test-results'),
  webServer: [
    {
      command: `python3 ../tests/scripted_model_server.py --port ${MODEL_PORT}`,
      url: `http://127.0.0.1:${MODEL_PORT}/v1/models`,
      reuseExistingServer: false
    },
    {
      // `env -i`: Playwright passes its own environment on (PYTHONPATH
      // pointing at a checkout would hide what the wheel installed).
      command: [
        'env -i',
        ...Object.entries(serverEnv).map(
          ([k, v]) => `${k}=${JSON.stringify(v)}`
        ),
        path.join(venv, 'bin', 'jupyter'),
        app,
        `--config=${path.join(__dirname, 'wheel', 'jupyter_server_config.py')}`,
        `--port=${PORT}`
      ].join(' '),
      url: `http://127.0.0.1:${PORT}/api/status`,
      timeout: 120000,
      reuseExistingServer: false
    }
  ]
};
