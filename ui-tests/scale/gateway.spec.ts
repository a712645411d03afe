/**
 * Kernels on a gateway: JupyterLab runs with --gateway-url against a real
 * Jupyter Kernel Gateway (the protocol Jupyter Enterprise Gateway serves for
 * kernels on a cluster). The agent's round trip works unchanged: it inserts
 * a cell, the cell runs in a kernel the gateway started, the output goes
 * back to the model, and the model key of the JupyterLab server is not in
 * that kernel's environment.
 */
import { expect, test } from '@jupyterlab/galata';
import { receivedAt, scriptAt } from '../tests/scripted-model';
import { cellSource, openAgent, SIDEBAR } from '../tests/sidebar';

const MODEL = 'http://127.0.0.1:8767';
const GATEWAY = 'http://127.0.0.1:8894';

test.use({ kernels: null, sessions: null });

test.afterEach(async ({ page }) => {
  await page.kernel.shutdownAll();
});

test('the agent runs its cell in a kernel on the gateway, which has no model key', async ({
  page,
  request
}) => {
  await page.notebook.createNew('gateway.ipynb');
  await scriptAt(MODEL, request, [
    {
      tool_calls: [
        {
          name: 'insert_cell',
          arguments: {
            source:
              'import os\n' +
              'print(os.environ.get("NOTEBOOK_AGENT_GATEWAY"), "OPENAI_API_KEY" in os.environ)'
          }
        }
      ]
    },
    {
      tool_calls: [{ name: 'run_cell', arguments: { cell_id: '{{cell_id}}' } }]
    },
    { content: 'The kernel runs **on the gateway**.' }
  ]);

  const prompt = await openAgent(page);
  await prompt.fill('Where does the kernel run?');
  await prompt.press('Enter');
  const sidebar = page.locator(`#${SIDEBAR}`);
  const approval = sidebar.getByRole('group', { name: 'Approval needed' });
  await approval.getByRole('button', { name: 'Run' }).click();
  await expect(sidebar.locator('.jp-AgentSidebar-assistant strong')).toHaveText(
    'on the gateway',
    { timeout: 60000 }
  );
  await expect(sidebar.getByRole('button', { name: 'Send' })).toBeVisible();

  // The cell ran in a kernel the gateway started (its environment has the
  // gateway's marker), without the JupyterLab server's key.
  const output = 'kernel-gateway-8894 False';
  expect(await cellSource(page, 1)).toContain('NOTEBOOK_AGENT_GATEWAY');
  expect((await page.notebook.getCellTextOutput(1))![0].trim()).toBe(output);
  // ...and the model was told what it printed.
  const requests = await receivedAt(MODEL, request);
  expect(requests).toHaveLength(3);
  const toolResult = requests[2].body.messages.find(
    m => m.role === 'tool' && (m.content ?? '').includes(output)
  );
  expect(toolResult).toBeDefined();

  // The notebook's kernel is the gateway's: its id is in the gateway's kernel list.
  const kernelId = await page.evaluate(() => {
    const panel = window.jupyterapp.shell.currentWidget as unknown as {
      sessionContext: { session: { kernel: { id: string } | null } | null };
    };
    return panel.sessionContext.session?.kernel?.id ?? '';
  });
  expect(kernelId).not.toBe('');
  const onGateway = (await (
    await request.get(`${GATEWAY}/api/kernels`)
  ).json()) as Array<{ id: string }>;
  expect(onGateway.map(k => k.id)).toContain(kernelId);
});
