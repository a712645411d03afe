/**
 * Headless Chromium for the browser benchmarks: Debian's /usr/bin/chromium
 * driven by the Playwright that ui-tests/ installs (no browser download).
 */
import {
  chromium,
  type Browser
} from '../../ui-tests/node_modules/playwright-core';

/** The flags the UI tests use (see ui-tests/playwright.config.js). */
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-dev-shm-usage'
];

/** Launch headless Chromium. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    headless: true,
    args: ARGS
  });
}
