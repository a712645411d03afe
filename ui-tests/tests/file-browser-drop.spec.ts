/**
 * Files dragged from JupyterLab's file browser onto the sidebar attach: one
 * under the notebook's directory by its path, one elsewhere copied next to
 * the notebook under a free name (never over a file that is there), and the
 * agent's code opens both by the names it was given.
 */
import { expect, test } from './shared-page';
import type { IJupyterLabPageFixture } from '@jupyterlab/galata';
import { received, script } from './scripted-model';
import { SIDEBAR, finished, openAgent, setAgentSettings } from './sidebar';

test.use({ kernels: null, sessions: null });

test.afterEach(async ({ page }) => {
  await setAgentSettings(page, {});
  await page.kernel.shutdownAll();
});

/** Drag the file browser's entry `name` (in the directory it shows) onto the sidebar. */
async function dragToSidebar(page: IJupyterLabPageFixture, name: string) {
  const item = page.locator('.jp-DirListing-item').filter({
    has: page.locator('.jp-DirListing-itemText', { hasText: name })
  });
  const from = (await item.boundingBox())!;
  const sidebar = page.locator(`#${SIDEBAR}`);
  const to = (await sidebar.boundingBox())!;
  await page.mouse.move(from.x + 20, from.y + from.height / 2);
  await page.mouse.down();
  // Past the browser's drag threshold, then over the sidebar.
  await page.mouse.move(from.x + 40, from.y + from.height / 2 + 10, {
    steps: 5
  });
  await page.mouse.move(to.x + to.width / 2, to.y + to.height / 2, {
    steps: 10
  });
  await expect(sidebar).toHaveClass(/jp-mod-dropTarget/);
  await page.mouse.up();
  await expect(sidebar).not.toHaveClass(/jp-mod-dropTarget/);
}

test('files dragged from the file browser attach by path, or as copies next to the notebook that replace nothing', async ({
  page,
  request,
  tmpPath
}) => {
  const text = (content: string, path: string) =>
    page.contents.uploadContent(content, 'text', `${tmpPath}/${path}`);
  await text('far away\n', 'far.csv');
  await text('already here\n', 'work/far.csv');
  await text('inner data\n', 'work/data/inner.csv');
  await text(
    JSON.stringify({
      cells: [],
      metadata: { kernelspec: { name: 'python3', display_name: 'Python 3' } },
      nbformat: 4,
      nbformat_minor: 5
    }),
    'work/drop.ipynb'
  );
  await setAgentSettings(page, { approvalMode: 'run-everything' });
  await page.notebook.openByPath(`${tmpPath}/work/drop.ipynb`);
  await openAgent(page);
  const sidebar = page.locator(`#${SIDEBAR}`);
  const chips = sidebar.locator('.jp-AgentSidebar-chip');

  // From the parent directory: copied next to the notebook; far.csv there stays as it was.
  await page.filebrowser.openDirectory(tmpPath);
  await dragToSidebar(page, 'far.csv');
  await expect(chips).toHaveText(['far-1.csv×']);
  const read = (path: string) =>
    page.evaluate(async path => {
      const response = await fetch(
        `/api/contents/${path}?type=file&format=text&content=1`
      );
      return response.ok ? (await response.json()).content : null;
    }, `${tmpPath}/${path}`);
  expect(await read('work/far-1.csv')).toBe('far away\n');
  expect(await read('work/far.csv')).toBe('already here\n');
  // Copied, not moved.
  expect(await read('far.csv')).toBe('far away\n');

  // From below the notebook's directory: attached by its relative path, not copied.
  await page.filebrowser.openDirectory(`${tmpPath}/work/data`);
  await dragToSidebar(page, 'inner.csv');
  await expect(chips).toHaveText(['far-1.csv×', 'data/inner.csv×']);
  expect(await page.contents.fileExists(`${tmpPath}/work/inner.csv`)).toBe(
    false
  );

  await script(request, [
    {
      tool_calls: [
        {
          name: 'insert_cell',
          arguments: {
            source:
              "print(open('far-1.csv').read().strip(), '|', open('data/inner.csv').read().strip())"
          }
        }
      ]
    },
    {
      tool_calls: [{ name: 'run_cell', arguments: { cell_id: '{{cell_id}}' } }]
    },
    { content: 'Both files read.' }
  ]);
  const prompt = await openAgent(page);
  await prompt.fill('Read the attached files');
  await prompt.press('Enter');
  await finished(page);
  const [first] = await received(request);
  const user = first.body.messages.filter(m => m.role === 'user').pop();
  expect(user?.content).toContain('- far-1.csv');
  expect(user?.content).toContain('- data/inner.csv');
  await expect(
    page.locator('.jp-Notebook .jp-Cell').last().locator('.jp-OutputArea')
  ).toContainText('far away | inner data');
});
