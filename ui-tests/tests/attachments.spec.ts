/**
 * Context the user adds to a prompt: files (copied next to the notebook and
 * used by the agent's code in the real kernel), selected cells, and
 * variables mentioned as @name (described by the kernel).
 */
import { expect, test } from './shared-page';
import { received, script } from './scripted-model';
import { SIDEBAR, finished, openAgent, setAgentSettings } from './sidebar';

test.use({ kernels: null, sessions: null });

test.afterEach(async ({ page }) => {
  await setAgentSettings(page, {});
  await page.kernel.shutdownAll();
});

test('an attached file is copied next to the notebook and the agent’s code reads it in the kernel', async ({
  page,
  request,
  tmpPath
}) => {
  await setAgentSettings(page, { approvalMode: 'run-everything' });
  await page.notebook.createNew('attach.ipynb');
  const prompt = await openAgent(page);
  const sidebar = page.locator(`#${SIDEBAR}`);
  await sidebar.getByLabel('Attach files to the prompt').setInputFiles({
    name: 'numbers.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from('value\n1\n2\n3\n')
  });
  await expect(sidebar.locator('.jp-AgentSidebar-chip')).toHaveText(
    'numbers.csv×'
  );
  await script(request, [
    {
      tool_calls: [
        {
          name: 'insert_cell',
          arguments: {
            source:
              "print(sum(int(v) for v in open('numbers.csv').read().split()[1:]))"
          }
        }
      ]
    },
    {
      tool_calls: [{ name: 'run_cell', arguments: { cell_id: '{{cell_id}}' } }]
    },
    { content: 'The values sum to 6.' }
  ]);
  await prompt.fill('Sum the values of the attached file');
  await prompt.press('Enter');
  await finished(page);
  const [first] = await received(request);
  const user = first.body.messages.filter(m => m.role === 'user').pop();
  expect(user?.content).toContain('- numbers.csv');
  await expect(sidebar.locator('.jp-AgentSidebar-user')).toContainText(
    '📎 numbers.csv'
  );
  // The chip went with the prompt.
  await expect(sidebar.locator('.jp-AgentSidebar-chip')).toHaveCount(0);
  await expect(
    page.locator('.jp-Notebook .jp-Cell').nth(1).locator('.jp-OutputArea')
  ).toContainText('6');
  expect(
    await page.filebrowser.contents.fileExists(`${tmpPath}/numbers.csv`)
  ).toBe(true);
});

test('selected cells and @variables reach the model with what the kernel says about them', async ({
  page,
  request
}) => {
  await page.notebook.createNew('context.ipynb');
  await page.notebook.setCell(0, 'code', 'counts = [3, 1, 2]');
  await page.notebook.runCell(0);
  await page.notebook.selectCells(0);
  await page.evaluate(() =>
    window.jupyterapp.commands.execute('notebook-agent:add-cells-to-chat')
  );
  const sidebar = page.locator(`#${SIDEBAR}`);
  await expect(sidebar.locator('.jp-AgentSidebar-chip')).toHaveText('cell 1×');
  await script(request, [{ content: 'It is a list of three numbers.' }]);
  const prompt = await openAgent(page);
  await prompt.fill('What is @counts?');
  await prompt.press('Enter');
  await finished(page);
  const [first] = await received(request);
  const user = first.body.messages.filter(m => m.role === 'user').pop();
  expect(user?.content).toContain('Cell 1 (cell_id');
  expect(user?.content).toContain('counts = [3, 1, 2]');
  expect(user?.content).toContain('@counts: builtins.list; [3, 1, 2]');
});
