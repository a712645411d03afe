/**
 * The wheel as users install it (scripts/test-wheel.sh): one real round trip
 * in JupyterLab or Notebook 7, with the scripted model behind the server's
 * proxy. Open the sidebar with its shortcut, ask, approve the agent's cell,
 * which runs in the notebook's kernel; its output goes back to the model and
 * the answer appears. The extension must load cleanly: no "Unsatisfied
 * version" warning for the shared JupyterLab packages, no error or warning
 * naming it, no uncaught error from its code.
 */
import { expect, test, type ConsoleMessage } from '@playwright/test';
import { receivedAt, scriptAt } from '../tests/scripted-model';

const MODEL_ROOT = process.env.NOTEBOOK_AGENT_WHEEL_MODEL_ROOT!;
const APP = process.env.NOTEBOOK_AGENT_WHEEL_APP ?? 'lab';
const NOTEBOOK = 'wheel-roundtrip.ipynb';
const SIDEBAR = '#notebook-agent-sidebar';
/** What the agent's cell prints: computed by the kernel, known to the test. */
const CODE = 'print(sum(range(10**4)) + 7)';
const PRINTED = String((10 ** 4 * (10 ** 4 - 1)) / 2 + 7);

test('the installed wheel: ask, the agent’s cell runs in the kernel, the answer appears', async ({
  page,
  request
}) => {
  const problems: string[] = [];
  page.on('console', (message: ConsoleMessage) => {
    const text = message.text();
    const bad = ['error', 'warning'].includes(message.type());
    if (
      /Unsatisfied version/.test(text) ||
      (bad && /notebook-agent/i.test(text))
    ) {
      problems.push(text);
    }
  });
  // Uncaught errors thrown by the extension's own code (its files are served
  // under labextensions/…/jupyterlab-notebook-agent/); the hosts have a few of
  // their own (Notebook 7.6.5's shortcuts plugin throws one on every load).
  page.on('pageerror', error => {
    const stack = error.stack ?? String(error);
    if (stack.includes('jupyterlab-notebook-agent')) {
      problems.push(stack);
    }
  });

  // The REST API wants the XSRF cookie's value back in a header, as the
  // page sends it; the app's page sets the cookie.
  await request.get(APP === 'lab' ? '/lab' : '/tree');
  const { cookies } = await request.storageState();
  const xsrf = cookies.find(cookie => cookie.name === '_xsrf')?.value ?? '';
  const created = await request.put(`/api/contents/${NOTEBOOK}`, {
    headers: { 'X-XSRFToken': xsrf },
    data: {
      type: 'notebook',
      content: {
        nbformat: 4,
        nbformat_minor: 5,
        metadata: {
          kernelspec: {
            name: 'python3',
            display_name: 'Python 3',
            language: 'python'
          }
        },
        cells: [
          {
            id: 'user-cell',
            cell_type: 'markdown',
            metadata: {},
            source: '# My analysis'
          }
        ]
      }
    }
  });
  expect(created.ok(), await created.text()).toBe(true);
  await scriptAt(MODEL_ROOT, request, [
    {
      content: 'I will compute it in a new cell.',
      tool_calls: [{ name: 'insert_cell', arguments: { source: CODE } }]
    },
    {
      tool_calls: [{ name: 'run_cell', arguments: { cell_id: '{{cell_id}}' } }]
    },
    { content: `The sum plus seven is **${PRINTED}**.` }
  ]);

  await page.goto(
    APP === 'lab' ? `/lab/tree/${NOTEBOOK}` : `/notebooks/${NOTEBOOK}`
  );
  await expect(page.locator('.jp-Notebook .jp-Cell').first()).toBeVisible({
    timeout: 60000
  });
  // The shortcut from the extension's settings (Alt+Shift+A): the sidebar
  // opens with the prompt focused.
  const prompt = page.getByRole('textbox', { name: 'Ask Notebook Agent' });
  await expect(async () => {
    await page.keyboard.press('Alt+Shift+A');
    await expect(prompt).toBeVisible({ timeout: 2000 });
  }).toPass({ timeout: 60000 });
  await prompt.fill('Add sum(range(10**4)) + 7 in a new cell and run it');
  await prompt.press('Enter');

  // Asked before the code runs (the default): approve it as shown.
  const sidebar = page.locator(SIDEBAR);
  const approval = sidebar.getByRole('group', { name: 'Approval needed' });
  await expect(
    approval.getByRole('textbox', { name: 'Code to approve' })
  ).toHaveValue(CODE, { timeout: 60000 });
  await approval.getByRole('button', { name: 'Run' }).click();

  await expect(sidebar.locator('.jp-AgentSidebar-assistant strong')).toHaveText(
    PRINTED,
    { timeout: 60000 }
  );
  await expect(sidebar.getByRole('button', { name: 'Send' })).toBeVisible();

  // The agent's cell sits below the user's, ran in the notebook's kernel.
  const cells = page.locator('.jp-Notebook .jp-Cell');
  await expect(cells).toHaveCount(2);
  await expect(cells.nth(1).locator('.jp-OutputArea-output')).toHaveText(
    PRINTED
  );
  await expect(cells.nth(1).locator('.jp-InputPrompt')).toHaveText('[1]:');
  // The model's last request carried the kernel's output as a tool result,
  // and the key was added by the server, not the browser.
  const requests = await receivedAt(MODEL_ROOT, request);
  expect(requests).toHaveLength(3);
  expect(requests[0].headers.authorization).toBe(
    'Bearer sk-wheel-test-key-kept-on-server'
  );
  const results = requests[2].body.messages.filter(m => m.role === 'tool');
  expect(results.at(-1)?.content).toContain(PRINTED);

  expect(problems).toEqual([]);
});
