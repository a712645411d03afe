/**
 * End to end: the sidebar agent inserts and runs a cell in the live kernel,
 * through the real proxy and the real `openai` client, with a scripted model.
 */
import { expect, test } from './shared-page';
import { MODEL_ROOT, received, script } from './scripted-model';
import {
  ask,
  cellSource,
  finished,
  openAgent,
  setAgentSettings,
  SIDEBAR
} from './sidebar';

// Real kernels and sessions, not Galata's tracking proxies (its proxy cannot
// forward the kernel interrupt request that Stop sends).
test.use({ kernels: null, sessions: null });

test.afterEach(async ({ page }) => {
  await page.kernel.shutdownAll();
});

test.describe('Notebook Agent sidebar', () => {
  test('inserts a cell below, runs it in the notebook kernel, and sends the output back to the model', async ({
    page,
    request
  }) => {
    await page.notebook.createNew('roundtrip.ipynb');
    await page.notebook.setCell(
      0,
      'code',
      'import random\nsecret = random.randint(10**6, 10**7)\nsecret'
    );
    await page.notebook.runCell(0, true);
    const secret = Number(
      (await page.notebook.getCellTextOutput(0))![0].trim()
    );
    expect(secret).toBeGreaterThanOrEqual(10 ** 6);

    await script(request, [
      { tool_calls: [{ name: 'read_notebook', arguments: {} }] },
      {
        content: 'I will compute it in a new cell.',
        tool_calls: [
          {
            name: 'insert_cell',
            arguments: {
              source: 'print(secret * 3 + 1)',
              after_cell_id: '{{cell_id}}'
            }
          }
        ],
        chunk_size: 4
      },
      {
        tool_calls: [
          { name: 'run_cell', arguments: { cell_id: '{{cell_id}}' } }
        ]
      },
      { content: 'Done: **the new cell** printed the value.' }
    ]);

    const prompt = await openAgent(page);
    await prompt.fill('Compute secret * 3 + 1 in a new cell');
    await prompt.press('Enter');

    const sidebar = page.locator(`#${SIDEBAR}`);
    // Asked before running code (the default): the card shows exactly what will run.
    const approval = sidebar.getByRole('group', { name: 'Approval needed' });
    await expect(
      approval.getByRole('textbox', { name: 'Code to approve' })
    ).toHaveValue('print(secret * 3 + 1)');
    await approval.getByRole('button', { name: 'Run' }).click();
    await expect(
      sidebar.locator('.jp-AgentSidebar-assistant strong')
    ).toHaveText('the new cell', { timeout: 60000 });
    await expect(sidebar.getByRole('button', { name: 'Send' })).toBeVisible();

    // The new cell sits below the user's, ran in the same kernel, and shows the right value.
    expect(await page.notebook.getCellCount()).toBe(2);
    expect(await cellSource(page, 1)).toBe('print(secret * 3 + 1)');
    const expected = String(secret * 3 + 1);
    expect((await page.notebook.getCellTextOutput(1))![0].trim()).toBe(
      expected
    );
    await expect(
      page.locator('.jp-Notebook .jp-Cell').nth(1).locator('.jp-InputPrompt')
    ).toHaveText('[2]:');

    // Token usage read from the stream: 4 turns of 10 prompt + 5 completion tokens.
    await expect(sidebar.locator('.jp-AgentSidebar-usage')).toHaveText(
      '60 tokens'
    );

    // The tool cards show what happened.
    await expect(
      sidebar.locator(
        '.jp-AgentSidebar-tool[data-tool="run_cell"][data-status="done"]'
      )
    ).toContainText(expected);

    // The model's next request carried the kernel's output as the tool result; the proxy added the key.
    const requests = await received(request);
    expect(requests).toHaveLength(4);
    expect(requests[0].headers.authorization).toBe(
      'Bearer sk-ui-test-key-kept-on-server'
    );
    expect(requests[0].body.model).toBe('scripted-model');
    const toolResults = requests[3].body.messages.filter(
      m => m.role === 'tool'
    );
    expect(toolResults).toHaveLength(3);
    expect(toolResults[2].content).toContain(expected);
    expect(toolResults[0].content).toContain('secret = random.randint');

    if (process.env.NOTEBOOK_AGENT_SCREENSHOT) {
      await page.screenshot({ path: process.env.NOTEBOOK_AGENT_SCREENSHOT });
    }
  });

  test('Stop interrupts a long-running cell and the agent stops', async ({
    page,
    request
  }) => {
    await page.notebook.createNew('stop.ipynb');
    await page.notebook.setCell(0, 'code', 'x = 1');
    await page.notebook.runCell(0, true);
    await script(request, [
      {
        tool_calls: [
          {
            name: 'insert_cell',
            arguments: {
              source: 'import time\nfor i in range(600):\n    time.sleep(0.1)'
            }
          }
        ]
      },
      {
        tool_calls: [
          { name: 'run_cell', arguments: { cell_id: '{{cell_id}}' } }
        ]
      },
      { content: 'never reached' }
    ]);
    const prompt = await openAgent(page);
    await prompt.fill('Sleep for a minute');
    await prompt.press('Enter');
    const sidebar = page.locator(`#${SIDEBAR}`);
    await sidebar
      .getByRole('group', { name: 'Approval needed' })
      .getByRole('button', { name: 'Run' })
      .click();
    // The cell is really running in the kernel: its prompt shows [*].
    await expect(
      page.locator('.jp-Notebook .jp-Cell').nth(1).locator('.jp-InputPrompt')
    ).toHaveText('[*]:');
    await expect(
      sidebar.locator(
        '.jp-AgentSidebar-tool[data-tool="run_cell"][data-status="running"]'
      )
    ).toBeVisible({
      timeout: 30000
    });
    await sidebar.getByRole('button', { name: 'Stop' }).click();
    await expect(sidebar.locator('.jp-AgentSidebar-note')).toHaveText(
      'Stopped.',
      { timeout: 15000 }
    );
    await expect(sidebar.getByRole('button', { name: 'Send' })).toBeVisible();
    // The kernel was interrupted: the cell shows KeyboardInterrupt, well before its 60 s.
    await expect(
      page.locator('.jp-Notebook .jp-Cell').nth(1).locator('.jp-OutputArea')
    ).toContainText('KeyboardInterrupt');
    expect(await received(request)).toHaveLength(2);
  });

  test('a rejected key (401) is explained and nothing is inserted', async ({
    page,
    request
  }) => {
    await page.notebook.createNew('auth.ipynb');
    await script(request, [
      {
        status: 401,
        error: {
          message: 'Incorrect API key provided',
          type: 'invalid_request_error'
        }
      }
    ]);
    const prompt = await openAgent(page);
    await prompt.fill('Do something');
    await prompt.press('Enter');
    const alert = page.locator(`#${SIDEBAR}`).getByRole('alert');
    await expect(alert).toContainText('rejected the API key (401)');
    await expect(alert).toContainText('OPENAI_API_KEY');
    expect(await page.notebook.getCellCount()).toBe(1);
    await expect(
      alert.getByRole('button', { name: 'Open settings' })
    ).toBeVisible();

    // The key was fixed: Retry sends the same request once more, not twice.
    await script(request, [{ content: 'Now it works.' }]);
    await alert.getByRole('button', { name: 'Retry' }).click();
    await expect(page.locator(`#${SIDEBAR}`)).toContainText('Now it works.');
    await expect(alert).toHaveCount(0);
    const [retried] = await received(request);
    expect(
      retried.body.messages.filter(m => m.content === 'Do something')
    ).toHaveLength(1);
  });

  test('with no notebook open, the sidebar says so, keeps the prompt, and calls no model', async ({
    page,
    request
  }) => {
    await script(request, [{ content: 'should not be requested' }]);
    const prompt = await openAgent(page);
    await prompt.fill('Analyse my data');
    await prompt.press('Enter');
    const alert = page.locator(`#${SIDEBAR}`).getByRole('alert');
    await expect(alert).toContainText('No notebook is open');
    await expect(alert).toContainText('File > New > Notebook');
    await expect(prompt).toHaveValue('Analyse my data');
    expect(await received(request)).toHaveLength(0);
  });

  test('an unreachable endpoint (direct mode) is explained and nothing is inserted', async ({
    page,
    request
  }) => {
    await page.notebook.createNew('unreachable.ipynb');
    await setAgentSettings(page, {
      endpointMode: 'direct',
      baseUrl: 'http://127.0.0.1:9/v1',
      model: 'm'
    });
    await script(request, [{ content: 'should not be requested' }]);
    const prompt = await openAgent(page);
    // The sidebar says where a direct-mode request goes.
    const note = page.locator(`#${SIDEBAR}`).getByRole('note');
    await expect(note).toContainText('Direct mode:');
    await expect(note).toContainText('http://127.0.0.1:9/v1');
    await prompt.fill('Do something');
    await prompt.press('Enter');
    const alert = page.locator(`#${SIDEBAR}`).getByRole('alert');
    await expect(alert).toContainText(
      'The browser could not reach http://127.0.0.1:9/v1',
      {
        timeout: 60000
      }
    );
    await expect(alert).toContainText('CORS');
    await expect(alert).toContainText('Use proxy mode');
    expect(await page.notebook.getCellCount()).toBe(1);

    await setAgentSettings(page, {
      endpointMode: 'direct',
      baseUrl: '',
      model: ''
    });
    await prompt.fill('Do something else');
    await prompt.press('Enter');
    await expect(alert).toContainText('no base URL is set');
    expect(await received(request)).toHaveLength(0);
    await setAgentSettings(page, {});
  });

  test('Azure OpenAI in direct mode: the browser calls the deployment with api-version and an api-key header', async ({
    page,
    request
  }) => {
    await page.notebook.createNew('azure.ipynb');
    await setAgentSettings(page, {
      endpointMode: 'direct',
      directApi: 'azure',
      baseUrl: MODEL_ROOT,
      azureDeployment: 'gpt4o-deployment',
      apiKey: 'azure-key-for-test'
    });
    await script(request, [{ content: 'Hello from Azure.' }]);
    await ask(page, 'Hi Azure');
    await finished(page);
    await expect(page.locator(`#${SIDEBAR}`)).toContainText(
      'Hello from Azure.'
    );
    const [sent] = await received(request);
    expect(sent.path).toBe(
      '/openai/deployments/gpt4o-deployment/chat/completions?api-version=2024-10-21'
    );
    expect(sent.headers['api-key']).toBe('azure-key-for-test');
    await setAgentSettings(page, {});
  });

  test('a stalled answer is stopped after the stall timeout of the settings, keeping the text so far', async ({
    page,
    request
  }) => {
    await page.notebook.createNew('stall.ipynb');
    await setAgentSettings(page, { modelIdleTimeoutSeconds: 2 });
    // The role frame and one text frame, then nothing for a minute on an open connection.
    await script(request, [
      { content: 'Working on it now', chunk_size: 8, stall: 60, stall_after: 2 }
    ]);
    const started = Date.now();
    await ask(page, 'Take your time');
    const alert = page.locator(`#${SIDEBAR}`).getByRole('alert');
    await expect(alert).toContainText('sent nothing for 2 s', {
      timeout: 30000
    });
    // Well before the server's minute: the setting, not a default, stopped it.
    expect(Date.now() - started).toBeLessThan(30000);
    await expect(alert).toContainText('Model stall timeout');
    // The text that came before the stall ("Working ", the first delta) stays.
    await expect(
      page.locator(`#${SIDEBAR}`).getByText('Working', { exact: true })
    ).toBeVisible();
    expect(await page.notebook.getCellCount()).toBe(1);
    await setAgentSettings(page, {});
  });
});
