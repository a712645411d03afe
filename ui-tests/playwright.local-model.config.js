/**
 * Playwright configuration for the local-model UI tests (the in-browser
 * model: transformers.js in a Web Worker).
 *
 * Its own Jupyter server on port 8891, with no model endpoint, serving the
 * tiny random-weight test model (built first by the webServer command, ~5 s)
 * from c.NotebookAgent.local_models_dir. Two projects: plain headless
 * Chromium, which has no WebGPU adapter (the WebAssembly rung runs), and
 * Chromium with --enable-unsafe-webgpu, which gets a SwiftShader adapter
 * without shader-f16 (the WebGPU + q4 rung runs, slowly).
 *
 *   cd ui-tests && npx playwright test -c playwright.local-model.config.js
 *
 * The webServer command also builds the real Qwen2.5-Coder-0.5B conversion
 * (tests/local_model/build_qwen2.py: the real-model lane's GGUF, downloaded
 * once, ~50 s to convert, skipped when built) for local-model/qwen-task.spec.ts.
 */
const baseConfig = require('@jupyterlab/galata/lib/playwright-config');
const { chromiumLaunchOptions } = require('./chromium');

const PORT = 8891;
const chromium = (extra, webgpu) => ({
  browserName: 'chromium',
  launchOptions: chromiumLaunchOptions(extra),
  // Read by the spec: which rung the sidebar must report (WASM runs the int8
  // weights: onnxruntime-web has no 4-bit CPU kernel), the weights file that
  // rung downloads, and how long an answer to ask for (SwiftShader's WebGPU
  // decodes about 1 token/s).
  expectedRung: webgpu ? 'WebGPU (q4)' : 'WebAssembly (q8)',
  expectedWeights: webgpu ? 'model_q4.onnx' : 'model_quantized.onnx',
  // (WASM: enough tokens that a fast q8 answer still spans several of the
  // sidebar's 50 ms renders, so token-by-token streaming is observable.)
  answerTokens: webgpu ? 8 : 400,
  // How long one turn may take: on SwiftShader the first one also compiles
  // every shader (about 60 s here when the machine is quiet; CI's machine
  // went past 60 s once), so the WebGPU rung gets more.
  turnTimeout: webgpu ? 180000 : 60000,
  // The reload-from-cache half of the first test: on WebAssembly only (the
  // cache is keyed by URL; on SwiftShader's WebGPU the second load costs a
  // minute).
  reloadCheck: !webgpu
});

module.exports = {
  ...baseConfig,
  testDir: './local-model',
  timeout: 420000,
  retries: 0,
  workers: 1,
  reporter: [['list']],
  use: {
    ...baseConfig.use,
    baseURL: `http://localhost:${PORT}`,
    video: 'off',
    trace: 'off'
  },
  projects: [
    {
      name: 'local-wasm',
      use: chromium(['--disable-gpu'], false)
    },
    {
      name: 'local-webgpu',
      // Start-up and interrupt do not depend on the device: run them once.
      grepInvert: /@device-independent/,
      // The Qwen build has the WebAssembly rung's q8 weights only (a q4
      // graph for WebGPU is not built: see the note in build_qwen2.py).
      testIgnore: /qwen-(task|completion)\.spec\.ts/,
      use: chromium(['--enable-unsafe-webgpu'], true)
    }
  ],
  webServer: [
    {
      command:
        'python ../tests/local_model/build_tiny_model.py --skip-existing ../build/local-models/tiny-llama && ' +
        'python ../tests/local_model/build_qwen2.py --skip-existing ../build/local-models/qwen2.5-coder-0.5b && ' +
        'env -u OPENAI_BASE_URL -u OPENAI_API_KEY -u NOTEBOOK_AGENT_MODEL ' +
        `jupyter lab --config local-model/jupyter_server_config.py --port ${PORT}`,
      url: `http://localhost:${PORT}/lab`,
      timeout: 900000,
      reuseExistingServer: false
    }
  ]
};
