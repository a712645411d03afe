/**
 * Playwright configuration for the UI tests.
 *
 * Real Jupyter servers with the installed extension: one whose proxy points
 * at the scripted model server (through the documented environment
 * variables), one with no endpoint configured, one with two provider
 * profiles, and one with MCP tool servers (mcp.spec.ts). Debian's Chromium is used
 * because test tools cannot download browsers here.
 */
const baseConfig = require('@jupyterlab/galata/lib/playwright-config');
const { chromiumLaunchOptions } = require('./chromium');

// Two parts of this suite can run at once (UI_SHARD below): the second
// one's servers listen on these ports shifted by UI_PORT_OFFSET. Build the test
// extension first then (bash test-extension/build.sh), or both copies would.
const OFFSET = Number(process.env.UI_PORT_OFFSET ?? 0);
const port = base => base + OFFSET;
const MODEL_PORT = port(8765);
const chromium = chromiumLaunchOptions();

// UI_SHARD splits the suite in two parts of about equal time, for two lanes
// of scripts/test-all.sh (with UI_PORT_OFFSET on one): "a" runs the files
// matched here (together about half of the suite's time), "b" all the
// others, so a new spec file lands in "b", never in neither. Unset: all.
const SHARD_A =
  /(^|\/)(port-contract|live-runs|live-faults|agent|approvals|chats|workflows|truth|mention-picker)\.spec\.ts$/;
const SHARD = process.env.UI_SHARD ?? '';
// outside-opencode.spec.ts (a real agent CLI and a local model) is not part
// of the suite: playwright.outside.config.js runs it when asked (#36).
const OWN_SERVERS =
  /(unconfigured|offline-start|narrow-sidebar|providers|mcp|outside-opencode)\.spec\.ts$/;

const projects = [
  {
    name: 'configured',
    ...(SHARD === 'a' ? { testMatch: SHARD_A } : {}),
    testIgnore: SHARD === 'b' ? [OWN_SERVERS, SHARD_A] : OWN_SERVERS,
    use: { baseURL: `http://localhost:${port(8888)}` }
  },
  {
    name: 'unconfigured',
    testMatch: /(unconfigured|offline-start|narrow-sidebar)\.spec\.ts/,
    use: { baseURL: `http://localhost:${port(8889)}` }
  },
  {
    name: 'providers',
    testMatch: /providers\.spec\.ts/,
    use: { baseURL: `http://localhost:${port(8890)}` }
  },
  {
    name: 'mcp',
    testMatch: /mcp\.spec\.ts/,
    use: { baseURL: `http://localhost:${port(8896)}` }
  }
];

module.exports = {
  ...baseConfig,
  // The local-model and security suites have configs (and servers) of their own.
  testDir: './tests',
  timeout: 120000,
  // One retry for timing flakes of a browser on two shared cores; a test that
  // fails twice fails the run (and a retried one is listed as flaky).
  retries: 1,
  workers: 1,
  reporter: [['list']],
  use: {
    ...baseConfig.use,
    video: 'off',
    trace: 'off',
    launchOptions: chromium
  },
  // Shard "a" has only files of the configured server.
  projects: SHARD === 'a' ? projects.slice(0, 1) : projects,
  // (Shard "a" needs only the first two: the model and the configured server.)
  webServer: (SHARD === 'a'
    ? servers => servers.slice(0, 2)
    : servers => servers)([
    {
      command: `python ../tests/scripted_model_server.py --port ${MODEL_PORT}`,
      url: `http://127.0.0.1:${MODEL_PORT}/v1/models`,
      reuseExistingServer: false
    },
    {
      // With a tiny extension of the tests' own that adds a tool through
      // INotebookAgent (built here, found through an extra path beside
      // Galata's: installed nowhere else).
      command: `bash test-extension/build.sh && NOTEBOOK_AGENT_TEST_LABEXTENSIONS="$PWD/test-extension/labextensions" jupyter lab --config jupyter_server_test_config.py --port ${port(8888)}`,
      url: `http://localhost:${port(8888)}/lab`,
      timeout: 120000,
      reuseExistingServer: false,
      env: {
        OPENAI_BASE_URL: `http://127.0.0.1:${MODEL_PORT}/v1`,
        OPENAI_API_KEY: 'sk-ui-test-key-kept-on-server',
        NOTEBOOK_AGENT_MODEL: 'scripted-model'
      }
    },
    {
      command:
        'env -u OPENAI_BASE_URL -u OPENAI_API_KEY -u NOTEBOOK_AGENT_MODEL jupyter lab --config jupyter_server_test_config.py ' +
        `--port ${port(8889)}`,
      url: `http://localhost:${port(8889)}/lab`,
      timeout: 120000,
      reuseExistingServer: false
    },
    {
      command:
        `env -u OPENAI_BASE_URL -u OPENAI_API_KEY -u NOTEBOOK_AGENT_MODEL NOTEBOOK_AGENT_UI_MODEL_PORT=${MODEL_PORT} ` +
        `jupyter lab --config jupyter_server_providers_config.py --port ${port(8890)}`,
      url: `http://localhost:${port(8890)}/lab`,
      timeout: 120000,
      reuseExistingServer: false
    },
    {
      command: `jupyter lab --config jupyter_server_mcp_config.py --port ${port(8896)}`,
      url: `http://localhost:${port(8896)}/lab`,
      timeout: 120000,
      reuseExistingServer: false,
      env: {
        OPENAI_BASE_URL: `http://127.0.0.1:${MODEL_PORT}/v1`,
        OPENAI_API_KEY: 'sk-ui-test-key-kept-on-server',
        NOTEBOOK_AGENT_MODEL: 'scripted-model'
      }
    }
  ])
};
