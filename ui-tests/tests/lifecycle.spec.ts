/**
 * A run's lifecycle in the browser, as a user meets it: a reload mid-run
 * loses nothing the agent did and shows the run as interrupted (with
 * Interrupt while the kernel still runs the agent's cell); a soft timeout
 * shows "still running", the model is asked to wait, and a run that leaves
 * a cell running names it with Interrupt; the sidebar names the chat's
 * notebook, and on another notebook says where the run works.
 */
import { expect, test, type IJupyterLabPageFixture } from '@jupyterlab/galata';
import { received, script } from './scripted-model';
import {
  ask,
  cellSource,
  finished,
  reloadToNotebook,
  setAgentSettings,
  SIDEBAR
} from './sidebar';
import { openEmptyNotebook } from './notebook-files';

test.use({ kernels: null, sessions: null });

test.afterEach(async ({ page }) => {
  // Through the server's settings API: after a plain browser reload the
  // page has no Galata helpers for setAgentSettings.
  await page.evaluate(() =>
    fetch('/lab/api/settings/jupyterlab-notebook-agent:plugin', {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ raw: '{}' })
    })
  );
  await page.kernel.shutdownAll();
});

const sidebar = (page: IJupyterLabPageFixture) => page.locator(`#${SIDEBAR}`);
const cell = (page: IJupyterLabPageFixture, index: number) =>
  page.locator('.jp-Notebook .jp-Cell').nth(index);

/** The execution state of the kernel of notebook `name`, as the server knows it. */
function kernelState(
  page: IJupyterLabPageFixture,
  name: string
): Promise<string> {
  return page.evaluate(async name => {
    const sessions = (await (await fetch('/api/sessions')).json()) as Array<{
      path: string;
      kernel: { execution_state: string } | null;
    }>;
    const own = sessions.find(s => s.path.endsWith(`/${name}`));
    return own?.kernel?.execution_state ?? 'none';
  }, name);
}

/**
 * A new notebook `name` in `dir`, opened with its kernel. Not Galata's
 * createNew, which renames "Untitled.ipynb" while its session is still being
 * created: JupyterLab then keeps the session under the old name, so the
 * sessions API (kernelState) and a reload (which finds the running kernel
 * by the notebook's path) would not find it.
 */
async function newNotebook(
  page: IJupyterLabPageFixture,
  dir: string,
  name: string
): Promise<void> {
  await openEmptyNotebook(page, `${dir}/${name}`);
  await page.notebook.activate(name);
  await expect
    .poll(() => kernelState(page, name), { timeout: 30000 })
    .toBe('idle');
}

/** The notebook at `path` as saved on the server (its JSON). */
function onDisk(page: IJupyterLabPageFixture, path: string): Promise<string> {
  return page.evaluate(
    async path =>
      (await fetch(`/api/contents/${path}?content=1&type=notebook`)).text(),
    path
  );
}

/** The agent inserts a cell that prints "working" then sleeps, and runs it. */
function insertAndRunSleeper(seconds: number, ...after: unknown[]) {
  return [
    {
      tool_calls: [
        {
          name: 'insert_cell',
          arguments: {
            source: `import time\nprint('working', flush=True)\ntime.sleep(${seconds})`
          }
        }
      ]
    },
    {
      tool_calls: [{ name: 'run_cell', arguments: { cell_id: '{{cell_id}}' } }]
    },
    ...after
  ];
}

/**
 * The user reloads seconds into the run (and leaves the page when asked):
 * the sidebar is open again, as it was before, and `name` is made current
 * (the restored layout may still be settling: in CI the current widget was
 * not the notebook yet).
 */
async function reloadMidRun(
  page: IJupyterLabPageFixture,
  name: string
): Promise<void> {
  page.on('dialog', dialog => void dialog.accept());
  await page.waitForTimeout(1500);
  await reloadToNotebook(page);
  await expect(
    page.getByRole('textbox', { name: 'Ask Notebook Agent' })
  ).toBeVisible({ timeout: 20000 });
  await expect
    .poll(() => page.notebook.activate(name), { timeout: 20000 })
    .toBe(true);
}

test('a reload mid-run keeps the agent’s cell, shows the run "interrupted (page reloaded)", and offers Interrupt only while the kernel still runs it', async ({
  page,
  request,
  tmpPath
}) => {
  await setAgentSettings(page, {
    approvalMode: 'run-everything',
    softTimeoutSeconds: 120
  });
  await newNotebook(page, tmpPath, 'reload.ipynb');
  await script(request, insertAndRunSleeper(300, { content: 'Done.' }));
  await ask(page, 'Sleep five minutes');
  await expect(cell(page, 1).locator('.jp-OutputArea')).toContainText(
    'working',
    { timeout: 30000 }
  );
  const card = sidebar(page).locator('[data-tool="run_cell"]');
  await expect(card.locator('.jp-AgentSidebar-toolState')).toHaveText(
    'running…'
  );
  // The agent's cell is on disk already: saved after the agent inserted it.
  const onDisk = () =>
    page.evaluate(
      async path =>
        (await fetch(`/api/contents/${path}?content=1&type=notebook`)).text(),
      `${tmpPath}/reload.ipynb`
    );
  await expect.poll(onDisk).toContain('time.sleep(300)');

  // The user reloads, seconds into the run, and leaves the page when asked.
  await reloadMidRun(page, 'reload.ipynb');
  // Nothing the agent did is lost.
  await expect.poll(() => cellSource(page, 1)).toContain('time.sleep(300)');
  // The run shows as interrupted, never running; Send is back.
  await expect(card.locator('.jp-AgentSidebar-toolState')).toHaveText(
    'interrupted (page reloaded)',
    { timeout: 20000 }
  );
  await expect(sidebar(page)).toContainText(
    'This run was interrupted (page reloaded)'
  );
  await expect(sidebar(page)).not.toContainText('running…');
  // A card's title and state stay apart, however the title wraps.
  const gap = await card
    .locator('.jp-AgentSidebar-toolHeader')
    .evaluate(header => {
      const title = header.querySelector('.jp-AgentSidebar-toolTitle')!;
      const state = header.querySelector('.jp-AgentSidebar-toolState')!;
      return (
        state.getBoundingClientRect().left - title.getBoundingClientRect().right
      );
    });
  expect(gap).toBeGreaterThanOrEqual(6);
  await expect(
    sidebar(page).getByRole('button', { name: 'Send' })
  ).toBeVisible();
  // The kernel still runs the agent's cell (a reload stops nothing in it):
  // the sidebar says so, with Interrupt; once idle, the banner goes.
  const busy = sidebar(page).locator('.jp-AgentSidebar-kernelBusy');
  expect(await kernelState(page, 'reload.ipynb')).toBe('busy');
  await expect(busy).toContainText(
    'The kernel of reload.ipynb is still busy with the agent’s cell',
    { timeout: 20000 }
  );
  await busy.getByRole('button', { name: 'Interrupt' }).click();
  await expect
    .poll(() => kernelState(page, 'reload.ipynb'), { timeout: 15000 })
    .toBe('idle');
  await expect(busy).toHaveCount(0, { timeout: 10000 });

  // The chat goes on, and the run_cell call the reload cut off has its answer.
  await script(request, [{ content: 'Ready again.' }]);
  await ask(page, 'Are you there?');
  await finished(page);
  await expect(sidebar(page)).toContainText('Ready again.');
  const [next] = await received(request);
  const tools = next.body.messages.filter(m => m.role === 'tool');
  expect(tools.at(-1)?.content).toContain('the page was reloaded');
});

test('a cell the agent inserts and runs in one step is saved as it starts: after a reload it is in the notebook, and the sidebar offers Interrupt', async ({
  page,
  request,
  tmpPath
}) => {
  await setAgentSettings(page, {
    approvalMode: 'run-everything',
    softTimeoutSeconds: 120
  });
  await newNotebook(page, tmpPath, 'onestep.ipynb');
  // Inserted and run in one call (what small models do): no step ends
  // while the cell runs.
  await script(request, [
    {
      tool_calls: [
        {
          name: 'insert_cell',
          arguments: {
            source:
              "import time\nprint('working', flush=True)\ntime.sleep(300)",
            run: true
          }
        }
      ]
    },
    { content: 'Done.' }
  ]);
  await ask(page, 'Sleep five minutes');
  await expect(cell(page, 1).locator('.jp-OutputArea')).toContainText(
    'working',
    { timeout: 30000 }
  );
  const card = sidebar(page).locator('[data-tool="insert_cell"]');
  await expect(card.locator('.jp-AgentSidebar-toolState')).toHaveText(
    'running…'
  );
  // On disk while it runs.
  await expect
    .poll(() => onDisk(page, `${tmpPath}/onestep.ipynb`), { timeout: 10000 })
    .toContain('time.sleep(300)');

  await reloadMidRun(page, 'onestep.ipynb');
  // The agent's cell is in the notebook; the run shows as interrupted.
  await expect.poll(() => cellSource(page, 1)).toContain('time.sleep(300)');
  await expect(card.locator('.jp-AgentSidebar-toolState')).toHaveText(
    'interrupted (page reloaded)',
    { timeout: 20000 }
  );
  // The kernel still runs it: the sidebar says so, and Interrupt stops it.
  const busy = sidebar(page).locator('.jp-AgentSidebar-kernelBusy');
  expect(await kernelState(page, 'onestep.ipynb')).toBe('busy');
  await expect(busy).toContainText(
    'The kernel of onestep.ipynb is still busy with the agent’s cell',
    { timeout: 20000 }
  );
  await busy.getByRole('button', { name: 'Interrupt' }).click();
  await expect
    .poll(() => kernelState(page, 'onestep.ipynb'), { timeout: 15000 })
    .toBe('idle');
  await expect(busy).toHaveCount(0, { timeout: 10000 });
});

test('a quick cell inserted and run in one step is saved with its output (a save as it started does not leave it unsaved)', async ({
  page,
  request,
  tmpPath
}) => {
  await setAgentSettings(page, { approvalMode: 'run-everything' });
  await newNotebook(page, tmpPath, 'quick.ipynb');
  await script(request, [
    {
      tool_calls: [
        {
          name: 'insert_cell',
          arguments: { source: "print('answer', 6 * 7)", run: true }
        }
      ]
    },
    { content: 'It printed 42.' }
  ]);
  await ask(page, 'Print the answer');
  await finished(page);
  await expect(cell(page, 1).locator('.jp-OutputArea')).toContainText(
    'answer 42'
  );
  await expect
    .poll(() => onDisk(page, `${tmpPath}/quick.ipynb`), { timeout: 10000 })
    .toContain('answer 42');
});

test('at the soft timeout the card says "still running", the model is asked to wait, and a cell left running is named with Interrupt', async ({
  page,
  request,
  tmpPath
}) => {
  await setAgentSettings(page, {
    approvalMode: 'run-everything',
    softTimeoutSeconds: 2
  });
  await newNotebook(page, tmpPath, 'soft.ipynb');
  await script(
    request,
    insertAndRunSleeper(
      120,
      { content: 'It printed working.' },
      { content: 'It keeps running; check it later.' }
    )
  );
  await ask(page, 'Start the long job');
  await finished(page);
  const state = sidebar(page).locator(
    '[data-tool="run_cell"] .jp-AgentSidebar-toolState'
  );
  await expect(state).toHaveText(/^still running \(\d+ s\)$/);
  // The first answer over the running cell got a reminder, not the end.
  const requests = await received(request);
  expect(requests).toHaveLength(4);
  const reminder = requests[3].body.messages.at(-1);
  expect(reminder?.role).toBe('user');
  expect(reminder?.content).toContain('still running in the kernel');
  // The run ended with the cell still running: named, with Interrupt.
  const left = sidebar(page)
    .getByRole('status')
    .filter({ hasText: 'Still running in the kernel' });
  await expect(left).toContainText(
    'Still running in the kernel: cell 2 (import time).'
  );
  expect(await kernelState(page, 'soft.ipynb')).toBe('busy');
  await left.getByRole('button', { name: 'Interrupt' }).click();
  await expect(cell(page, 1).locator('.jp-OutputArea')).toContainText(
    'KeyboardInterrupt',
    { timeout: 15000 }
  );
  await expect
    .poll(() => kernelState(page, 'soft.ipynb'), { timeout: 15000 })
    .toBe('idle');
});

test('the sidebar names the chat’s notebook; on another one during a run it says "Working in A.ipynb — Go there · Stop"', async ({
  page,
  request,
  tmpPath
}) => {
  await setAgentSettings(page, {
    approvalMode: 'run-everything',
    softTimeoutSeconds: 120
  });
  await newNotebook(page, tmpPath, 'A.ipynb');
  await script(request, insertAndRunSleeper(120, { content: 'Done.' }));
  await ask(page, 'Work in A');
  const name = sidebar(page).locator('.jp-AgentSidebar-notebookName');
  await expect(name).toHaveText('A.ipynb');
  await expect(cell(page, 1).locator('.jp-OutputArea')).toContainText(
    'working',
    { timeout: 30000 }
  );

  // The user opens another notebook.
  await page.contents.uploadContent(
    JSON.stringify({
      cells: [],
      metadata: { kernelspec: { name: 'python3', display_name: 'Python 3' } },
      nbformat: 4,
      nbformat_minor: 5
    }),
    'text',
    `${tmpPath}/B.ipynb`
  );
  await page.notebook.openByPath(`${tmpPath}/B.ipynb`);
  const elsewhere = sidebar(page).locator('.jp-AgentSidebar-elsewhere');
  await expect(elsewhere).toHaveText('Working in A.ipynb — Go there · Stop');
  // A's chat is not shown as if it were B's.
  await expect(sidebar(page)).not.toContainText('Work in A');

  // Go there: A is on screen, with its chat.
  await elsewhere.getByRole('button', { name: 'Go there' }).click();
  await expect(page.locator('.jp-NotebookPanel:visible')).toHaveCount(1);
  await expect
    .poll(() =>
      page.evaluate(
        () =>
          (
            window.jupyterapp.shell.currentWidget as unknown as {
              context?: { path: string };
            }
          )?.context?.path
      )
    )
    .toMatch(/A\.ipynb$/);
  await expect(elsewhere).toHaveCount(0);
  await expect(sidebar(page)).toContainText('Work in A');

  // Back on B, Stop from there ends the run; B's own chat follows.
  await page.notebook.activate('B.ipynb');
  await elsewhere.getByRole('button', { name: 'Stop' }).click();
  await finished(page);
  await expect(elsewhere).toHaveCount(0);
  await expect(name).toHaveText('B.ipynb');
  await expect(sidebar(page)).not.toContainText('Work in A');
  // Stop interrupted the agent's cell in A: no kernel is busy.
  await expect
    .poll(
      () =>
        page.evaluate(async () =>
          (
            (await (await fetch('/api/kernels')).json()) as Array<{
              execution_state: string;
            }>
          )
            .map(k => k.execution_state)
            .join()
        ),
      { timeout: 15000 }
    )
    .not.toContain('busy');
});
