/**
 * Results that tell the truth, in the real UI: a generated notebook of
 * placeholders is "Built, not verified", an answer stating numbers nothing
 * computed is marked, and so is one whose numbers come from sums multiplied
 * together where a per-row product was asked for; Reject of a fix and Undo
 * of an agent run bring back the cell's outputs and execution count with
 * its source; Generate while a run is active says so and creates nothing. (Chats that cannot be
 * listed or saved: chat-failures.spec.ts, which routes requests.)
 */
import type { IJupyterLabPageFixture } from '@jupyterlab/galata';
import { expect, test } from './shared-page';
import { script } from './scripted-model';
import {
  ask,
  cellSource,
  finished,
  setAgentSettings,
  SIDEBAR
} from './sidebar';

test.use({ kernels: null, sessions: null });

test.afterEach(async ({ page }) => {
  await setAgentSettings(page, {});
  await page.kernel.shutdownAll();
});

const sidebar = (page: IJupyterLabPageFixture) => page.locator(`#${SIDEBAR}`);
const cell = (page: IJupyterLabPageFixture, index: number) =>
  page.locator('.jp-Notebook .jp-Cell').nth(index);

/**
 * Run the palette's Generate Notebook command, as a user does. The shortcut
 * is pressed again until the palette shows: in a fresh-clone run under load
 * one press was lost, and the test waited 2 minutes for the palette.
 */
async function generateFromPalette(page: IJupyterLabPageFixture) {
  const search = page.getByRole('textbox', { name: 'SEARCH' });
  await expect(async () => {
    if (!(await search.isVisible())) {
      await page.keyboard.press('Control+Shift+C');
    }
    await expect(search).toBeVisible({ timeout: 3000 });
  }).toPass({ timeout: 30000 });
  await search.fill('Generate Notebook');
  await page.keyboard.press('Enter');
}

/** How many kernels the server runs now. */
async function kernelCount(page: IJupyterLabPageFixture): Promise<number> {
  return page.evaluate(async () => {
    const kernels = window.jupyterapp.serviceManager.kernels;
    await kernels.refreshRunning();
    return [...kernels.running()].length;
  });
}

/** A notebook with one code cell, run once; resolves with its cell id. */
async function oneCell(
  page: IJupyterLabPageFixture,
  name: string,
  source: string
): Promise<string> {
  await page.notebook.createNew(name);
  await page.notebook.setCell(0, 'code', source);
  await page.notebook.run();
  return page.evaluate(() => {
    const panel = window.jupyterapp.shell.currentWidget as unknown as {
      content: { widgets: Array<{ model: { id: string } }> };
    };
    return panel.content.widgets[0].model.id;
  });
}

test('Generate notebook: a notebook whose only code is a placeholder is "Built, not verified", never Verified', async ({
  page,
  request,
  tmpPath
}) => {
  await script(request, [
    {
      tool_calls: [
        {
          name: 'insert_cell',
          arguments: { cell_type: 'markdown', source: '# Sales analysis' }
        }
      ]
    },
    {
      tool_calls: [
        {
          name: 'insert_cell',
          arguments: { source: '# Your code goes here' }
        }
      ]
    },
    {
      tool_calls: [{ name: 'run_cell', arguments: { cell_id: '{{cell_id}}' } }]
    },
    {
      tool_calls: [
        {
          name: 'insert_cell',
          arguments: {
            cell_type: 'markdown',
            source: '## Summary\nRevenue grew 12.5% to 48,200.'
          }
        }
      ]
    },
    { content: 'The notebook is ready.' }
  ]);
  await generateFromPalette(page);
  const dialog = page.locator('.jp-Dialog');
  await dialog
    .getByRole('textbox', { name: 'What should the notebook do?' })
    .fill('Analyze the sales and save it as placeholder.ipynb');
  await dialog.getByRole('button', { name: 'Generate' }).click();

  const verdict = sidebar(page).locator('.jp-AgentSidebar-note.jp-mod-warning');
  await expect(verdict).toHaveText(
    'Built, not verified: no code cell does any work (they are empty or hold only comments, pass or placeholders).',
    { timeout: 90000 }
  );
  await finished(page);
  await expect(sidebar(page)).not.toContainText('Verified: the kernel');
  // The notebook says so itself, rendered under its summary (its last cell).
  const last = page.locator('.jp-Notebook .jp-Cell').last();
  await expect(last).toHaveClass(/jp-MarkdownCell/);
  await expect(last.locator('.jp-RenderedMarkdown')).toContainText(
    'Not verified: no code cell does any work'
  );
  await expect(last.locator('.jp-RenderedMarkdown')).toContainText(
    'Revenue grew 12.5% to 48,200.'
  );
  expect(
    await page.filebrowser.contents.fileExists(`${tmpPath}/placeholder.ipynb`)
  ).toBe(true);
});

test('Generate notebook: a summary ranking a label the printed table does not put there is "Built, not verified"', async ({
  page,
  request
}) => {
  // The walk's 1.5B: units per region printed (North 408), "East has the highest" in the summary.
  await script(request, [
    {
      tool_calls: [
        {
          name: 'insert_cell',
          arguments: {
            source:
              "print('region\\nEast     297\\nNorth    408\\nWest     245')"
          }
        }
      ]
    },
    {
      tool_calls: [{ name: 'run_cell', arguments: { cell_id: '{{cell_id}}' } }]
    },
    {
      tool_calls: [
        {
          name: 'insert_cell',
          arguments: {
            cell_type: 'markdown',
            source: '## Summary\nEast has the highest units of all regions.'
          }
        }
      ]
    },
    { content: 'The notebook is ready.' }
  ]);
  await generateFromPalette(page);
  const dialog = page.locator('.jp-Dialog');
  await dialog
    .getByRole('textbox', { name: 'What should the notebook do?' })
    .fill('Units per region, saved as ranking.ipynb');
  await dialog.getByRole('button', { name: 'Generate' }).click();

  const verdict = sidebar(page).locator('.jp-AgentSidebar-note.jp-mod-warning');
  await expect(verdict).toHaveText(
    'Built, not verified: the summary says “East has the highest units of all regions”, which the printed ' +
      'tables do not show (North 408, East 297).',
    { timeout: 90000 }
  );
  await finished(page);
  const last = page.locator('.jp-Notebook .jp-Cell').last();
  await expect(last.locator('.jp-RenderedMarkdown')).toContainText(
    'Not verified: the summary says “East has the highest units of all regions”'
  );
});

test('an answer from a turn that ran no code and states numbers is marked "not computed in the notebook"', async ({
  page,
  request
}) => {
  await page.notebook.createNew('guess.ipynb');
  await script(request, [
    { content: 'The average order value is 42.75 EUR, up 8.3%.' }
  ]);
  await ask(page, 'What is the average order value?');
  await finished(page);
  const mark = sidebar(page).getByRole('note');
  await expect(mark).toHaveText('⚠ not computed in the notebook: 42.75, 8.3%');

  // An answer whose turn ran the code that printed it carries no mark.
  await setAgentSettings(page, { approvalMode: 'run-everything' });
  await script(request, [
    { tool_calls: [{ name: 'run_code', arguments: { code: 'print(6 * 7)' } }] },
    { content: 'It is 42.' }
  ]);
  await ask(page, 'Compute 6 × 7');
  await finished(page);
  await expect(sidebar(page).getByRole('note')).toHaveCount(1);
});

test('an answer whose numbers come from multiplied grouped sums carries a notice saying what the code computes', async ({
  page,
  request
}) => {
  await page.notebook.createNew('revenue.ipynb');
  await setAgentSettings(page, { approvalMode: 'run-everything' });
  // The 1.5B's mistake in every walk of stops 54-57: sum per region, then
  // multiply the sums (North: (1 + 2) × (10 + 20) = 90; the revenue is 50).
  const code = [
    'import pandas as pd',
    "df = pd.DataFrame({'region': ['North', 'North', 'South'], 'units': [1, 2, 3], 'unit_price': [10.0, 20.0, 5.0]})",
    "g = df.groupby('region')",
    "revenue = g['units'].sum() * g['unit_price'].sum()",
    'print(revenue.to_dict())'
  ].join('\n');
  await script(request, [
    { tool_calls: [{ name: 'run_code', arguments: { code } }] },
    { content: 'Revenue per region: North 90.0, South 15.0.' }
  ]);
  await ask(page, 'What is the revenue (units × unit_price) per region?');
  await finished(page);
  await expect(
    sidebar(page).getByText('Revenue per region: North 90.0')
  ).toBeVisible();
  await expect(sidebar(page)).toContainText(
    '⚠ The numbers above come from code that computes units summed per group times unit_price summed per group, ' +
      'which is not the total of units × unit_price over the rows: check them before you use them.'
  );

  // The per-row product, summed per group: the same question answered right carries none.
  await script(request, [
    {
      tool_calls: [
        {
          name: 'run_code',
          arguments: {
            code: "df['total'] = df['units'] * df['unit_price']\nprint(df.groupby('region')['total'].sum().to_dict())"
          }
        }
      ]
    },
    { content: 'Revenue per region: North 50.0, South 15.0.' }
  ]);
  await ask(page, 'Compute it per row first.');
  await finished(page);
  await expect(
    sidebar(page).getByText('Revenue per region: North 50.0')
  ).toBeVisible();
  await expect(
    sidebar(page).getByText(/The numbers above come from code/)
  ).toHaveCount(1);
});

test('a small model’s guess, sent back to be computed, is folded away under its label; the computed answer reads as the answer', async ({
  page,
  request
}) => {
  await page.notebook.createNew('small-guess.ipynb');
  await setAgentSettings(page, {
    approvalMode: 'run-everything',
    modelCapabilities: { '*': { profile: 'small', tools: 'native' } }
  });
  await script(request, [
    { content: 'There are 37 rows:\n\n```python\nlen(df)\n```' },
    {
      tool_calls: [
        {
          name: 'insert_cell',
          arguments: { source: 'print(6 * 7)', run: true }
        }
      ]
    },
    { content: 'There are 42 rows.' }
  ]);
  await ask(page, 'How many rows does the table have?');
  await finished(page);
  await expect(sidebar(page)).toContainText(
    'The answer was not computed in the notebook: asked the model to run code for it.'
  );
  const guess = sidebar(page).locator('.jp-AgentSidebar-guess');
  await expect(guess.locator('summary')).toHaveText(
    'A first answer, not computed in the notebook'
  );
  await expect(guess.getByText('There are 37 rows:')).toBeHidden();
  await expect(sidebar(page).getByText('There are 42 rows.')).toBeVisible();
  // The guess is still there for whoever wants it, its code block with the
  // same buttons as any answer's (decorated again once it became a guess).
  await guess.locator('summary').click();
  await expect(guess.getByText('There are 37 rows:')).toBeVisible();
  await expect(guess.getByRole('button', { name: 'Copy' })).toBeVisible();
});

test('Reject of a fix restores the cell’s outputs and execution count with its source', async ({
  page,
  request
}) => {
  const broken = 'print(answer)';
  const id = await oneCell(page, 'reject.ipynb', broken);
  await expect(cell(page, 0).locator('.jp-OutputArea')).toContainText(
    "name 'answer' is not defined"
  );
  const prompt = cell(page, 0).locator('.jp-InputPrompt');
  await expect(prompt).toHaveText('[1]:');
  await script(request, [
    {
      tool_calls: [
        {
          name: 'edit_cell',
          arguments: { cell_id: id, source: 'answer = 42\nprint(answer)' }
        }
      ]
    },
    { tool_calls: [{ name: 'run_cell', arguments: { cell_id: id } }] },
    { content: 'answer was not defined.' }
  ]);
  // The user's path: the cell menu's Fix this cell.
  await cell(page, 0).locator('.jp-InputArea-prompt').click();
  await cell(page, 0)
    .locator('.jp-InputArea-prompt')
    .click({ button: 'right' });
  await page
    .getByRole('menuitem', { name: 'Fix This Cell with Notebook Agent' })
    .click();
  const review = sidebar(page).getByRole('region', { name: 'Review the fix' });
  await expect(review).toContainText('The cell runs without error now.', {
    timeout: 60000
  });
  await expect(cell(page, 0).locator('.jp-OutputArea')).toContainText('42');
  await review.getByRole('button', { name: 'Reject' }).click();
  await expect(sidebar(page)).toContainText(
    'Rejected: the cells are back as they were.'
  );
  expect(await cellSource(page, 0)).toBe(broken);
  // Not the user's code above the agent's output: the original error, count 1.
  const outputs = cell(page, 0).locator('.jp-OutputArea');
  await expect(outputs).toContainText("name 'answer' is not defined");
  await expect(outputs).not.toContainText('42');
  await expect(prompt).toHaveText('[1]:');
});

test('Undo of an agent run brings back the outputs and execution count with the source', async ({
  page,
  request
}) => {
  await setAgentSettings(page, { approvalMode: 'run-everything' });
  await oneCell(page, 'undo-outputs.ipynb', 'print("mine")');
  await expect(cell(page, 0).locator('.jp-OutputArea')).toContainText('mine');
  await script(request, [
    { tool_calls: [{ name: 'read_notebook', arguments: {} }] },
    {
      tool_calls: [
        {
          name: 'edit_cell',
          arguments: { cell_id: '{{cell_id}}', source: 'print("agent")' }
        }
      ]
    },
    {
      tool_calls: [{ name: 'run_cell', arguments: { cell_id: '{{cell_id}}' } }]
    },
    { content: 'Done.' }
  ]);
  await ask(page, 'Change the cell');
  await finished(page);
  await expect(cell(page, 0).locator('.jp-OutputArea')).toContainText('agent');
  await expect(cell(page, 0).locator('.jp-InputPrompt')).toHaveText('[2]:');
  // One Undo, from the notebook in command mode.
  await page.notebook.activate('undo-outputs.ipynb');
  await cell(page, 0).locator('.jp-InputPrompt').click();
  await page.keyboard.press('Escape');
  await page.keyboard.press('z');
  await expect.poll(() => cellSource(page, 0)).toBe('print("mine")');
  await expect(cell(page, 0).locator('.jp-OutputArea')).toContainText('mine');
  await expect(cell(page, 0).locator('.jp-OutputArea')).not.toContainText(
    'agent'
  );
  await expect(cell(page, 0).locator('.jp-InputPrompt')).toHaveText('[1]:');
});

test('Generate notebook while a run is active says so at once and creates no notebook and no kernel', async ({
  page,
  request,
  tmpPath
}) => {
  await page.notebook.createNew('busy.ipynb');
  // A run that waits for the user's approval is active.
  await script(request, [
    { tool_calls: [{ name: 'run_code', arguments: { code: 'print(1)' } }] },
    { content: 'Done.' }
  ]);
  await ask(page, 'Print one');
  const approval = sidebar(page).getByRole('group', {
    name: 'Approval needed'
  });
  await expect(approval).toBeVisible({ timeout: 60000 });
  const kernelsBefore = await kernelCount(page);
  const filesBefore = (await page.contents.getContentMetadata(tmpPath))?.content
    .length;

  await generateFromPalette(page);
  await expect(sidebar(page)).toContainText(
    'Notebook Agent is busy with another task: nothing was created or changed.'
  );
  await expect(page.locator('.jp-Dialog')).toHaveCount(0);
  expect(await kernelCount(page)).toBe(kernelsBefore);
  expect(
    (await page.contents.getContentMetadata(tmpPath))?.content.length
  ).toBe(filesBefore);
  // Fix this cell from the cell menu: the same, at once.
  await page.notebook.setCell(0, 'code', 'print(missing)');
  await cell(page, 0).locator('.jp-InputArea-prompt').click();
  await cell(page, 0)
    .locator('.jp-InputArea-prompt')
    .click({ button: 'right' });
  await page
    .getByRole('menuitem', { name: 'Fix This Cell with Notebook Agent' })
    .click();
  await expect(sidebar(page)).toContainText('then ask for the fix again.');
  expect(await cellSource(page, 0)).toBe('print(missing)');
  await approval.getByRole('button', { name: 'Reject' }).click();
  await approval.getByRole('button', { name: 'Send rejection' }).click();
  await finished(page);
});
