/**
 * Playwright configuration for the scaling-out UI tests, with servers of
 * their own (ports 8767, 8893-8895, 8768-8769), beside the other suites:
 *
 * - gateway: JupyterLab started with --gateway-url against a real Jupyter
 *   Kernel Gateway, so the agent's kernels run on the gateway (the path to
 *   Jupyter Enterprise Gateway clusters);
 * - discovery: JupyterLab with no endpoint, looking for model servers on
 *   loopback ports 8768 and 8769, where the tests start scripted ones.
 *
 *   cd ui-tests && npx playwright test -c playwright.scale.config.js
 */
const baseConfig = require('@jupyterlab/galata/lib/playwright-config');
const { chromiumLaunchOptions } = require('./chromium');

const MODEL_PORT = 8767;
const GATEWAY_PORT = 8894;

module.exports = {
  ...baseConfig,
  testDir: './scale',
  timeout: 120000,
  retries: 1,
  workers: 1,
  reporter: [['list']],
  use: {
    ...baseConfig.use,
    video: 'off',
    trace: 'off',
    launchOptions: chromiumLaunchOptions()
  },
  projects: [
    {
      name: 'gateway',
      testMatch: /gateway\.spec\.ts/,
      use: { baseURL: 'http://localhost:8893' }
    },
    {
      name: 'discovery',
      testMatch: /discovery\.spec\.ts/,
      use: { baseURL: 'http://localhost:8895' }
    }
  ],
  webServer: [
    {
      command: `python ../tests/scripted_model_server.py --port ${MODEL_PORT}`,
      url: `http://127.0.0.1:${MODEL_PORT}/v1/models`,
      reuseExistingServer: false
    },
    {
      // The gateway's own environment has no model key; its kernels inherit
      // the marker (and only it), which shows a kernel started there.
      // Listing kernels lets the test see them.
      command:
        `env -u OPENAI_API_KEY NOTEBOOK_AGENT_GATEWAY=kernel-gateway-${GATEWAY_PORT} ` +
        `jupyter kernelgateway --KernelGatewayApp.ip=127.0.0.1 --KernelGatewayApp.port=${GATEWAY_PORT} ` +
        '--KernelGatewayApp.env_process_whitelist=NOTEBOOK_AGENT_GATEWAY ' +
        '--JupyterWebsocketPersonality.list_kernels=True',
      url: `http://127.0.0.1:${GATEWAY_PORT}/api/kernelspecs`,
      timeout: 120000,
      reuseExistingServer: false
    },
    {
      command: `jupyter lab --config jupyter_server_test_config.py --port 8893 --gateway-url=http://127.0.0.1:${GATEWAY_PORT}`,
      url: 'http://localhost:8893/lab',
      timeout: 120000,
      reuseExistingServer: false,
      env: {
        OPENAI_BASE_URL: `http://127.0.0.1:${MODEL_PORT}/v1`,
        OPENAI_API_KEY: 'sk-gateway-test-key-kept-on-the-lab-server',
        NOTEBOOK_AGENT_MODEL: 'scripted-model'
      }
    },
    {
      command:
        'env -u OPENAI_BASE_URL -u OPENAI_API_KEY -u NOTEBOOK_AGENT_MODEL jupyter lab ' +
        '--config scale/jupyter_server_discovery_config.py --port 8895',
      url: 'http://localhost:8895/lab',
      timeout: 120000,
      reuseExistingServer: false
    }
  ]
};
