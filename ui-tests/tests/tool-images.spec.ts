/**
 * Images in tool cards: a cell the agent runs shows two pictures; its card
 * shows them as small thumbnails that open full size, and the saved chat
 * keeps only their count.
 */
import { expect, test } from '@jupyterlab/galata';
import { script } from './scripted-model';
import {
  SIDEBAR,
  ask,
  finished,
  openAgent,
  reloadToNotebook,
  setAgentSettings
} from './sidebar';

test.use({ kernels: null, sessions: null });

test.afterEach(async ({ page }) => {
  // After the plain reload below Galata's helpers are gone: the test has
  // reset the settings itself by then.
  await setAgentSettings(page, {}).catch(() => undefined);
  await page.kernel.shutdownAll();
});

/** Python (standard library only) that displays a 320×200 red and a 100×100 blue PNG. */
const SHOW_TWO_IMAGES = [
  'import struct, zlib',
  'from IPython.display import Image, display',
  'def png(w, h, rgb):',
  "    raw = b''.join(b'\\x00' + bytes(rgb) * w for _ in range(h))",
  '    def chunk(kind, data):',
  "        return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data))",
  "    header = struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0)",
  "    return b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', header) + chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b'')",
  'display(Image(png(320, 200, (200, 30, 30))))',
  'display(Image(png(100, 100, (30, 30, 200))))'
].join('\n');

test('a run that shows images gets thumbnails on its card; they open full size; the saved chat keeps only their count', async ({
  page,
  request,
  tmpPath
}) => {
  await setAgentSettings(page, { approvalMode: 'run-everything' });
  await page.notebook.createNew('pictures.ipynb');
  await script(request, [
    {
      tool_calls: [
        { name: 'insert_cell', arguments: { source: SHOW_TWO_IMAGES } }
      ]
    },
    {
      tool_calls: [{ name: 'run_cell', arguments: { cell_id: '{{cell_id}}' } }]
    },
    { content: 'Two squares: a red one and a blue one.' }
  ]);
  const sidebar = await ask(page, 'Show me two squares');
  await finished(page);

  const card = sidebar.locator('.jp-AgentSidebar-tool[data-tool="run_cell"]');
  const thumbs = card.locator('.jp-AgentSidebar-thumbs button');
  await expect(thumbs).toHaveCount(2);
  await expect(thumbs.first()).toHaveAccessibleName(
    'Image 1 of 2 (320×200): show full size'
  );
  // The real pictures, decoded, and small on the card.
  const first = thumbs.first().locator('img');
  await expect
    .poll(() => first.evaluate(img => (img as HTMLImageElement).naturalWidth))
    .toBe(320);
  const box = await first.boundingBox();
  expect(box!.height).toBeLessThanOrEqual(96.5);
  expect(box!.width).toBeLessThanOrEqual(128.5);
  // The other cards have none.
  await expect(sidebar.locator('.jp-AgentSidebar-thumb')).toHaveCount(2);

  // Click: full size under the thumbnails; a second click closes it.
  await thumbs.first().click();
  await expect(thumbs.first()).toHaveAttribute('aria-expanded', 'true');
  const full = card.getByRole('img', { name: 'Image 1 of 2 (320×200)' });
  await expect(full).toBeVisible();
  const fullBox = await full.boundingBox();
  expect(fullBox!.height).toBeGreaterThan(120);
  await card.getByRole('button', { name: 'Close the full-size image' }).click();
  await expect(full).toHaveCount(0);
  // The keyboard opens it too.
  await thumbs.nth(1).focus();
  await page.keyboard.press('Enter');
  await expect(
    card.getByRole('img', { name: 'Image 2 of 2 (100×100)' })
  ).toBeVisible();

  // The saved chat has no image data, only the count, and so has the card after a reload.
  await expect
    .poll(
      async () =>
        page.evaluate(async notebook => {
          const list = await (
            await fetch(
              `/notebook-agent/chats?notebook=${encodeURIComponent(notebook)}`
            )
          ).json();
          const id = list.chats?.[0]?.id;
          if (!id) {
            return 'no chat';
          }
          const text = await (
            await fetch(`/notebook-agent/chats/${encodeURIComponent(id)}`)
          ).text();
          const record = JSON.parse(text);
          // The saved chat's one record: a call's card is in its entry.
          const tool = record.entries
            .map((e: { card?: { name?: string; status?: string } }) => e.card)
            .find(
              (i?: { name?: string; status?: string }) =>
                i?.name === 'run_cell' && i.status === 'done'
            );
          return tool
            ? `${tool.images === undefined} ${tool.moreImages} ${text.includes('iVBORw0KGgo')}`
            : 'no card';
        }, `${tmpPath}/pictures.ipynb`),
      { timeout: 15000 }
    )
    .toBe('true 2 false');
  await setAgentSettings(page, {});
  await page.evaluate(() =>
    window.jupyterapp.commands.execute('docmanager:save-all')
  );
  await reloadToNotebook(page);
  const prompt = page.getByRole('textbox', { name: 'Ask Notebook Agent' });
  await page.waitForTimeout(1000);
  if (!(await prompt.isVisible())) {
    await openAgent(page);
  }
  const restored = page
    .locator(`#${SIDEBAR}`)
    .locator('.jp-AgentSidebar-tool[data-tool="run_cell"]');
  await expect(restored).toContainText('2 images not shown here', {
    timeout: 20000
  });
  await expect(restored.locator('.jp-AgentSidebar-thumb')).toHaveCount(0);
});
