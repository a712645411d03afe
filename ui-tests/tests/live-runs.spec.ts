/**
 * Step-2 behaviours in the live notebook with a real kernel: watched runs,
 * input(), a dying kernel, the user's edits winning over the agent's, a
 * rejection reaching the model, and one Undo reverting a whole agent run.
 */
import { expect, test } from './shared-page';
import { received, script } from './scripted-model';
import { ask, cellSource, finished, setAgentSettings } from './sidebar';

test.use({ kernels: null, sessions: null });

test.afterEach(async ({ page }) => {
  await setAgentSettings(page, {});
  await page.kernel.shutdownAll();
});

const toolResults = (body: {
  messages: Array<{ role: string; content: string | null }>;
}) => body.messages.filter(m => m.role === 'tool').map(m => m.content ?? '');

test('a long cell returns partial output at the soft timeout, then is interrupted on request', async ({
  page,
  request
}) => {
  await setAgentSettings(page, {
    approvalMode: 'run-everything',
    softTimeoutSeconds: 2
  });
  await page.notebook.createNew('long.ipynb');
  // The soft timeout is to fall while the cell prints, not while a new
  // kernel starts on a loaded machine (the cell would then show no output).
  await page.waitForFunction(() => {
    const panel = window.jupyterapp.shell.currentWidget as unknown as {
      sessionContext?: { session?: { kernel?: { status: string } | null } };
    } | null;
    return panel?.sessionContext?.session?.kernel?.status === 'idle';
  });
  await script(request, [
    {
      tool_calls: [
        {
          name: 'insert_cell',
          arguments: {
            source:
              'import time\nfor i in range(300):\n    print(i, flush=True)\n    time.sleep(0.1)'
          }
        }
      ]
    },
    {
      tool_calls: [{ name: 'run_cell', arguments: { cell_id: '{{cell_id}}' } }]
    },
    { tool_calls: [{ name: 'interrupt_kernel', arguments: {} }] },
    {
      tool_calls: [
        { name: 'wait', arguments: { cell_id: '{{cell_id}}', seconds: 10 } }
      ]
    },
    { content: 'Interrupted it.' }
  ]);
  await ask(page, 'Run a long loop');
  await finished(page);
  const results = toolResults((await received(request))[4].body);
  expect(results[1]).toMatch(/still running/i);
  expect(results[1]).toMatch(/\n1\n/);
  expect(results[1]).not.toContain('299');
  expect(results[3]).toContain('KeyboardInterrupt');
  await expect(
    page.locator('.jp-Notebook .jp-Cell').nth(1).locator('.jp-OutputArea')
  ).toContainText('KeyboardInterrupt');
});

test('input() does not hang a run, and a dying kernel is reported', async ({
  page,
  request
}) => {
  await setAgentSettings(page, { approvalMode: 'run-everything' });
  await page.notebook.createNew('stdin.ipynb');
  await script(request, [
    {
      tool_calls: [
        {
          name: 'insert_cell',
          arguments: { source: "name = input('Your name? ')" }
        }
      ]
    },
    {
      tool_calls: [{ name: 'run_cell', arguments: { cell_id: '{{cell_id}}' } }]
    },
    {
      tool_calls: [
        { name: 'run_code', arguments: { code: 'import os; os._exit(1)' } }
      ]
    },
    { content: 'Both reported.' }
  ]);
  const started = Date.now();
  await ask(page, 'Ask my name, then crash');
  await finished(page);
  expect(Date.now() - started).toBeLessThan(45000);
  const results = toolResults((await received(request))[3].body);
  expect(results[1]).toMatch(/input\(\)/);
  expect(results[2]).toMatch(/kernel died/i);
});

test('a restart by another client (REST) while a cell runs is reported at once, not at the timeout', async ({
  page,
  request
}) => {
  await setAgentSettings(page, {
    approvalMode: 'run-everything',
    softTimeoutSeconds: 60
  });
  await page.notebook.createNew('restarted.ipynb');
  await script(request, [
    {
      tool_calls: [
        {
          name: 'run_code',
          arguments: {
            code: 'import time\nprint("started", flush=True)\ntime.sleep(60)'
          }
        }
      ]
    },
    { content: 'Reported.' }
  ]);
  await ask(page, 'Sleep a minute');
  // The code runs (a kernel is busy); then another client restarts that kernel.
  await expect
    .poll(
      () =>
        page.evaluate(async () => {
          const kernels = (await (
            await fetch('/api/kernels')
          ).json()) as Array<{
            execution_state: string;
          }>;
          return kernels.some(k => k.execution_state === 'busy');
        }),
      { timeout: 30000 }
    )
    .toBe(true);
  const kernelId = await page.evaluate(async () => {
    const kernels = (await (await fetch('/api/kernels')).json()) as Array<{
      id: string;
      execution_state: string;
    }>;
    return kernels.find(k => k.execution_state === 'busy')!.id;
  });
  const started = Date.now();
  // Not through the page's kernel connection: as a second client would.
  const status = await page.evaluate(async id => {
    const xsrf = /_xsrf=([^;]+)/.exec(document.cookie)?.[1] ?? '';
    const response = await fetch(`/api/kernels/${id}/restart`, {
      method: 'POST',
      headers: { 'X-XSRFToken': decodeURIComponent(xsrf) }
    });
    return response.status;
  }, kernelId);
  expect(status).toBe(200);
  await finished(page);
  expect(Date.now() - started).toBeLessThan(20000);
  const results = toolResults((await received(request))[1].body);
  expect(results[0]).toMatch(/restarted/i);
});

test('the user editing a cell while the agent waits makes edit_cell refuse', async ({
  page,
  request
}) => {
  await setAgentSettings(page, { approvalMode: 'ask-before-edits' });
  await page.notebook.createNew('edit.ipynb');
  await page.notebook.setCell(0, 'code', 'value = 1');
  await script(request, [
    { tool_calls: [{ name: 'read_notebook', arguments: {} }] },
    {
      tool_calls: [
        {
          name: 'edit_cell',
          arguments: { cell_id: '{{cell_id}}', source: 'value = 100' }
        }
      ]
    },
    { content: 'The user changed it first.' }
  ]);
  const sidebar = await ask(page, 'Set value to 100');
  const approval = sidebar.getByRole('group', { name: 'Approval needed' });
  await expect(approval).toContainText('Replace the cell with this code');
  // Meanwhile the user edits the same cell.
  await page.notebook.setCell(0, 'code', 'value = 2  # mine');
  await approval.getByRole('button', { name: 'Apply' }).click();
  await finished(page);
  expect(await cellSource(page, 0)).toBe('value = 2  # mine');
  const results = toolResults((await received(request))[2].body);
  expect(results[1]).toContain('the user changed cell');
});

test('a rejection with a reason goes back to the model and nothing runs', async ({
  page,
  request
}) => {
  await page.notebook.createNew('reject.ipynb');
  await script(request, [
    {
      tool_calls: [
        {
          name: 'run_code',
          arguments: { code: "open('marker.txt', 'w').write('x')" }
        }
      ]
    },
    { content: 'Understood.' }
  ]);
  const sidebar = await ask(page, 'Write a file');
  const approval = sidebar.getByRole('group', { name: 'Approval needed' });
  await approval.getByRole('button', { name: 'Reject' }).click();
  await approval
    .getByRole('textbox', { name: 'Reason for rejecting' })
    .fill('no files please');
  await approval.getByRole('button', { name: 'Send rejection' }).click();
  await finished(page);
  const results = toolResults((await received(request))[1].body);
  expect(results[0]).toContain('said: "no files please"');
  expect(await page.filebrowser.contents.fileExists('marker.txt')).toBe(false);
});

test('one Undo reverts a whole agent run in the live notebook', async ({
  page,
  request
}) => {
  await setAgentSettings(page, { approvalMode: 'run-everything' });
  await page.notebook.createNew('undo.ipynb');
  await page.notebook.setCell(0, 'code', 'x = 1');
  await script(request, [
    { tool_calls: [{ name: 'read_notebook', arguments: {} }] },
    {
      tool_calls: [
        {
          name: 'edit_cell',
          arguments: { cell_id: '{{cell_id}}', source: 'x = 2' }
        }
      ]
    },
    {
      tool_calls: [{ name: 'insert_cell', arguments: { source: 'y = x * 10' } }]
    },
    {
      tool_calls: [
        {
          name: 'insert_cell',
          arguments: { source: '## Notes', cell_type: 'markdown' }
        }
      ]
    },
    { content: 'Done.' }
  ]);
  await ask(page, 'Change things');
  await finished(page);
  expect(await page.notebook.getCellCount()).toBe(3);
  expect(await cellSource(page, 0)).toBe('x = 2');
  // One Undo, from the notebook in command mode.
  await page.notebook.activate('undo.ipynb');
  await page
    .locator('.jp-Notebook .jp-Cell')
    .first()
    .locator('.jp-InputPrompt')
    .click();
  await page.keyboard.press('Escape');
  await page.keyboard.press('z');
  await expect.poll(() => page.notebook.getCellCount()).toBe(1);
  expect(await cellSource(page, 0)).toBe('x = 1');
});

test('with vision on, a plot reaches the model as a downscaled image, never as base64 text', async ({
  page,
  request
}) => {
  await setAgentSettings(page, {
    approvalMode: 'run-everything',
    vision: true,
    maxImageSide: 256
  });
  await page.notebook.createNew('vision.ipynb');
  // A 1200×300 PNG made with the standard library (no plotting package needed).
  const code = [
    'import struct, zlib',
    'from IPython.display import Image, display',
    'w, h = 1200, 300',
    "rows = b''.join(b'\\x00' + bytes(v for x in range(w) for v in (x * 255 // w, y * 255 // h, 128)) for y in range(h))",
    "chunk = lambda t, d: struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)",
    "png = b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0)) + chunk(b'IDAT', zlib.compress(rows)) + chunk(b'IEND', b'')",
    'display(Image(data=png))'
  ].join('\n');
  await script(request, [
    { tool_calls: [{ name: 'run_code', arguments: { code } }] },
    { content: 'I see a gradient.' }
  ]);
  await ask(page, 'Show me a picture');
  await finished(page);
  const body = (await received(request))[1].body as unknown as {
    messages: Array<{
      role: string;
      content: string | Array<{ type: string; image_url?: { url: string } }>;
    }>;
  };
  const tool = body.messages.find(m => m.role === 'tool')!;
  expect(String(tool.content)).toMatch(/image\/png/);
  expect(String(tool.content)).not.toContain('iVBORw0KGgo');
  const last = body.messages[body.messages.length - 1];
  expect(last.role).toBe('user');
  const part = (
    last.content as Array<{ type: string; image_url?: { url: string } }>
  ).find(p => p.type === 'image_url')!;
  const png = Buffer.from(part.image_url!.url.split(',')[1], 'base64');
  expect(png.subarray(1, 4).toString()).toBe('PNG');
  expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([256, 64]);
});
