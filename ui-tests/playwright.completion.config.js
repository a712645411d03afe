/**
 * Playwright configuration for the inline completion UI test: a real model
 * (Qwen2.5-Coder-0.5B-Instruct on llama.cpp's llama-server, port 8962, which
 * requires a key only the Jupyter server holds) behind the extension's proxy
 * on a Jupyter server of its own (port 8961).
 *
 *   cd ui-tests && npx playwright test -c playwright.completion.config.js
 *
 * The model and server are cached by scripts/real_model.py (the test
 * command's install lane fetches them; run alone on a fresh machine, the
 * first start downloads and builds them).
 */
const baseConfig = require('@jupyterlab/galata/lib/playwright-config');
const { chromiumLaunchOptions } = require('./chromium');

const PORT = 8961;
const MODEL_PORT = 8962;
const KEY = 'sk-completion-test-held-by-the-server-7f3a9c';

module.exports = {
  ...baseConfig,
  testDir: './completion',
  timeout: 300000,
  retries: 0,
  workers: 1,
  reporter: [['list']],
  use: {
    ...baseConfig.use,
    browserName: 'chromium',
    launchOptions: chromiumLaunchOptions(),
    baseURL: `http://localhost:${PORT}`,
    video: 'off',
    trace: 'off'
  },
  webServer: [
    {
      command: `python completion/serve_model.py ${MODEL_PORT} ${KEY}`,
      url: `http://127.0.0.1:${MODEL_PORT}/health`,
      // llama-server logs every request: only its errors are worth reading.
      stdout: 'ignore',
      stderr: 'ignore',
      timeout: 1800000,
      reuseExistingServer: false
    },
    {
      command:
        'env -u OPENAI_BASE_URL -u OPENAI_API_KEY -u NOTEBOOK_AGENT_MODEL ' +
        `jupyter lab --config completion/jupyter_server_config.py --port ${PORT}`,
      url: `http://localhost:${PORT}/lab`,
      timeout: 120000,
      reuseExistingServer: false
    }
  ]
};
