/**
 * The port contract (src/agent/testing/port-contract/) on the live port:
 * every case runs inside the page, on LiveNotebookPort in a real
 * JupyterLab notebook with a real kernel, through the extension's test
 * hook (src/jupyter/test-hooks.ts). The same cases run under Jest on the
 * fake notebook and on the headless port. The live port declares no case
 * not applicable: each one must pass here.
 *
 * One JupyterLab page for all cases (each case opens and closes notebooks
 * of its own through the harness, src/jupyter/live-harness.ts): loading
 * JupyterLab per case was about a third of this file's time. After a
 * failed case Playwright starts a new worker, so the next case gets a fresh
 * page.
 */
import { expect, test } from '@jupyterlab/galata';
import type { Page } from '@playwright/test';
import { PORT_CASES } from '../../src/agent/testing/port-contract/cases';
import type { CaseOutcome } from '../../src/agent/testing/port-contract/contract';

let lab: Page | null = null;

test.beforeAll(async ({ browser }, testInfo) => {
  testInfo.setTimeout(120000);
  lab = await browser.newPage({ baseURL: testInfo.project.use.baseURL });
  await lab.goto('/lab');
  await lab.waitForFunction(() => 'notebookAgentTest' in window, null, {
    timeout: 90000
  });
});

test.afterAll(async () => {
  if (!lab) {
    return;
  }
  // Whatever a case left running (its harness shuts down its own kernels).
  const kernels = (await (await lab.request.get('/api/kernels')).json()) as {
    id: string;
  }[];
  for (const kernel of kernels) {
    await lab.request.delete(`/api/kernels/${kernel.id}`).catch(() => null);
  }
  await lab.context().close();
  lab = null;
});

for (const portCase of PORT_CASES) {
  test(`live port: ${portCase.name}`, async () => {
    test.setTimeout(portCase.timeoutMs + 60000);
    const outcome = await lab!.evaluate(
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
