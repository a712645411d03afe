/**
 * How the UI suites launch Chromium: Debian's build (test tools cannot
 * download browsers here), headless-friendly flags, plus `extra` flags
 * (`--disable-gpu`, or `--enable-unsafe-webgpu` for the WebGPU rung).
 */
const BASE_ARGS = [
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-dev-shm-usage'
];

/** Playwright `launchOptions` for Chromium with `extra` flags. */
function chromiumLaunchOptions(extra = ['--disable-gpu']) {
  return {
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    args: [...BASE_ARGS, ...extra]
  };
}

module.exports = { chromiumLaunchOptions };
