/**
 * The port contract (src/agent/testing/port-contract/) on the live port:
 * every case runs inside the page, on LiveNotebookPort in a real
 * JupyterLab notebook with a real kernel, through the extension's test
 * hook (src/jupyter/testing/test-hooks.ts). The same cases run under Jest on the
 * fake notebook and on the headless port. The live port declares no case
 * not applicable: each one must pass here.
 *
 * The cases share one JupyterLab page (./shared-page.ts; each case opens
 * and closes notebooks of its own), except those in FRESH_PAGE: the 50 MB
 * case saw its kernel connection drop under load when it ran in the page
 * the other cases had used, twice in a row, so it gets a page of its own.
 */
import type { IJupyterLabPageFixture } from '@jupyterlab/galata';
import { PORT_CASES } from '../../src/agent/testing/port-contract/cases';
import type {
  CaseOutcome,
  IPortCase
} from '../../src/agent/testing/port-contract/contract';
import { test as freshPageTest } from '@jupyterlab/galata';
import { expect, test } from './shared-page';

const FRESH_PAGE = new Set([
  '50 MB of stdout: the cell and the observation stay bounded'
]);

test.use({ kernels: null, sessions: null });
freshPageTest.use({ kernels: null, sessions: null });

/** Run the case named `name` in `page` (the extension's test hook). */
async function runCase(
  page: IJupyterLabPageFixture,
  name: string
): Promise<CaseOutcome> {
  await page.waitForFunction(() => 'notebookAgentTest' in window, null, {
    timeout: 30000
  });
  return page.evaluate(
    caseName =>
      (
        window as unknown as {
          notebookAgentTest: {
            runPortCase(name: string): Promise<CaseOutcome>;
          };
        }
      ).notebookAgentTest.runPortCase(caseName),
    name
  );
}

/** Run `portCase` in `page`, then shut its kernels down. */
async function check(page: IJupyterLabPageFixture, portCase: IPortCase) {
  test.setTimeout(portCase.timeoutMs + 60000);
  try {
    const outcome = await runCase(page, portCase.name);
    expect(outcome.status === 'failed' ? outcome.error : outcome.status).toBe(
      'passed'
    );
  } finally {
    await page.kernel.shutdownAll();
  }
}

for (const portCase of PORT_CASES) {
  const declare = FRESH_PAGE.has(portCase.name) ? freshPageTest : test;
  declare(`live port: ${portCase.name}`, ({ page }) => check(page, portCase));
}
