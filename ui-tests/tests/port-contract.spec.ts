/**
 * The port contract (src/agent/testing/port-contract/) on the live port:
 * every case runs inside the page, on LiveNotebookPort in a real
 * JupyterLab notebook with a real kernel, through the extension's test
 * hook (src/jupyter/test-hooks.ts). The same cases run under Jest on the
 * fake notebook and on the headless port. The live port declares no case
 * not applicable: each one must pass here.
 *
 * Each case gets a fresh JupyterLab page (Galata's). One page for all cases
 * took 240 s instead of 540 s here, but under load the 50 MB case then saw
 * its kernel connection drop, twice in a row: not kept until that is
 * understood.
 */
import { expect, test } from '@jupyterlab/galata';
import { PORT_CASES } from '../../src/agent/testing/port-contract/cases';
import type { CaseOutcome } from '../../src/agent/testing/port-contract/contract';

test.use({ kernels: null, sessions: null });

test.afterEach(async ({ page }) => {
  await page.kernel.shutdownAll();
});

for (const portCase of PORT_CASES) {
  test(`live port: ${portCase.name}`, async ({ page }) => {
    test.setTimeout(portCase.timeoutMs + 60000);
    await page.waitForFunction(() => 'notebookAgentTest' in window, null, {
      timeout: 30000
    });
    const outcome = await page.evaluate(
      name =>
        (
          window as unknown as {
            notebookAgentTest: {
              runPortCase(name: string): Promise<CaseOutcome>;
            };
          }
        ).notebookAgentTest.runPortCase(name),
      portCase.name
    );
    expect(outcome.status === 'failed' ? outcome.error : outcome.status).toBe(
      'passed'
    );
  });
}
