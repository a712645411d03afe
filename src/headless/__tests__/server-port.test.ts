/**
 * ServerNotebookPort against a real Jupyter server and ipykernel.
 *
 * One private server and one notebook for the whole file; the tests run in
 * order and share the kernel (the kernel-death test comes last). Timing
 * assertions are only generous upper bounds that prove "does not hang".
 */
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ContentsManager } from '@jupyterlab/services';
import {
  NotebookPortError,
  type CellOutput,
  type IRunResult
} from '../../agent/ports';
import {
  endedWithKeyError,
  frameColumns
} from '../../agent/tools/frame-columns';
import {
  describeVariableRows,
  mentionProbe
} from '../../agent/context/attachments';
import { probeVariables } from '../../agent/tools/variables-probe';
import { JupyterServerProcess } from '../servers/jupyter-server';
import { ServerNotebookPort } from '../server-port/server-port';
import { SERVER_START_MS } from './server-start';

jest.setTimeout(30000);

let server: JupyterServerProcess;
let port: ServerNotebookPort;

beforeAll(async () => {
  // @jupyterlab/services logs every kernel status and reconnect.
  jest.spyOn(console, 'debug').mockImplementation(() => undefined);
  jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  server = await JupyterServerProcess.start();
  port = await ServerNotebookPort.open({
    serverSettings: server.serverSettings,
    path: 'agent.ipynb',
    createIfMissing: true
  });
}, SERVER_START_MS);

afterAll(async () => {
  await port?.close({ shutdownKernel: true });
  await server?.dispose();
}, 30000);

function stdout(outputs: CellOutput[]): string {
  return outputs
    .map(o => (o.type === 'stream' && o.name === 'stdout' ? o.text : ''))
    .join('');
}

function errorName(result: IRunResult): string | undefined {
  const error = result.outputs.find(o => o.type === 'error');
  return error?.type === 'error' ? error.ename : undefined;
}

async function waitFor(
  predicate: () => boolean,
  timeoutMs: number
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) {
      throw new Error(`condition not met within ${timeoutMs} ms`);
    }
    await new Promise(resolve => setTimeout(resolve, 50));
  }
}

async function codeCell(source: string) {
  return port.insertCell({ type: 'code', source });
}

describe('ServerNotebookPort', () => {
  it('runs cells in order, records outputs and counts, and saves', async () => {
    const a = await codeCell('x = 20');
    const b = await codeCell('print(x * 2 + 2)');
    const c = await codeCell('x + 1');
    const ra = await port.runCell(a.id);
    const rb = await port.runCell(b.id);
    const rc = await port.runCell(c.id);
    expect([ra.status, rb.status, rc.status]).toEqual(['ok', 'ok', 'ok']);
    expect(rb.outputs).toEqual([
      { type: 'stream', name: 'stdout', text: '42\n' }
    ]);
    expect(rc.outputs[0]).toMatchObject({
      type: 'execute_result',
      data: { 'text/plain': '21' }
    });
    expect(ra.executionCount).not.toBeNull();
    expect(rb.executionCount).toBe(ra.executionCount! + 1);
    expect(rc.executionCount).toBe(ra.executionCount! + 2);
    expect(rb.elapsedMs).toBeGreaterThanOrEqual(0);

    const cells = await port.getCells();
    expect(cells.map(cell => cell.id)).toEqual([a.id, b.id, c.id]);
    expect(cells[1]).toMatchObject({
      executionCount: rb.executionCount,
      lastRunSource: 'print(x * 2 + 2)'
    });

    await port.save();
    const contents = new ContentsManager({
      serverSettings: server.serverSettings
    });
    const model = await contents.get('agent.ipynb', { content: true });
    contents.dispose();
    const nb = model.content as {
      nbformat: number;
      nbformat_minor: number;
      cells: Array<Record<string, unknown>>;
    };
    expect(nb.nbformat).toBe(4);
    expect(nb.nbformat_minor).toBeGreaterThanOrEqual(5);
    expect(nb.cells.map(cell => cell.id)).toEqual([a.id, b.id, c.id]);
    expect(nb.cells[1]).toMatchObject({
      cell_type: 'code',
      execution_count: rb.executionCount,
      outputs: [{ output_type: 'stream', name: 'stdout', text: '42\n' }]
    });
    expect(nb.cells[2]).toMatchObject({
      outputs: [
        {
          output_type: 'execute_result',
          execution_count: rc.executionCount,
          data: { 'text/plain': '21' }
        }
      ]
    });
  });

  it('refuses unknown cells and markdown runs with guidance', async () => {
    await expect(port.runCell('no-such-cell')).rejects.toThrow(
      /no cell with id no-such-cell.*read_notebook/
    );
    const md = await port.insertCell({ type: 'markdown', source: '# Hi' });
    await expect(port.runCell(md.id)).rejects.toBeInstanceOf(NotebookPortError);
    await port.deleteCell(md.id);
    expect((await port.getCells()).some(cell => cell.id === md.id)).toBe(false);
  });

  it('returns partial output at the soft timeout, then stops on interrupt', async () => {
    const started = Date.now();
    const cell = await codeCell(
      'import time\nfor i in range(100):\n    print(i, flush=True)\n    time.sleep(0.1)'
    );
    const first = await port.runCell(cell.id, { softTimeoutMs: 1000 });
    expect(first.status).toBe('running');
    const firstText = stdout(first.outputs);
    expect(firstText).toMatch(/^0\n/);
    expect(firstText).not.toMatch(/\b99\n/);

    const second = await port.waitForCell(cell.id, { softTimeoutMs: 500 });
    expect(second.status).toBe('running');
    expect(stdout(second.outputs).length).toBeGreaterThan(firstText.length);
    expect(stdout(second.outputs).startsWith(firstText)).toBe(true);

    await port.interrupt();
    // Decision: a run this port interrupted ends as 'aborted'; its outputs
    // keep the KeyboardInterrupt traceback.
    const last = await port.waitForCell(cell.id, { softTimeoutMs: 10000 });
    expect(last.status).toBe('aborted');
    expect(errorName(last)).toBe('KeyboardInterrupt');
    expect(stdout(last.outputs)).not.toMatch(/\b99\n/);
    expect(Date.now() - started).toBeLessThan(10000);
    // The cell holds the same outputs.
    const [saved] = (await port.getCells()).filter(c => c.id === cell.id);
    expect(saved.outputs).toEqual(last.outputs);
  });

  it('interrupts at the hard timeout', async () => {
    const cell = await codeCell('import time\ntime.sleep(30)');
    const result = await port.runCell(cell.id, { hardTimeoutMs: 1500 });
    expect(result.status).toBe('timeout');
    expect(result.elapsedMs).toBeGreaterThanOrEqual(1400);
    expect(result.elapsedMs).toBeLessThan(15000);
    await waitFor(() => port.kernelState() === 'idle', 5000);
  });

  it('does not hang on input(): stdin is refused', async () => {
    const cell = await codeCell("name = input('name?')");
    const result = await port.runCell(cell.id, { hardTimeoutMs: 15000 });
    expect(result.status).toBe('error');
    expect(result.stdinRefused).toBe(true);
    expect(errorName(result)).toBe('StdinNotImplementedError');
    expect(result.elapsedMs).toBeLessThan(15000);
  });

  it('aborts on the signal and leaves the kernel idle', async () => {
    const cell = await codeCell('import time\ntime.sleep(30)');
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 500);
    const result = await port.runCell(cell.id, { signal: controller.signal });
    expect(result.status).toBe('aborted');
    expect(result.elapsedMs).toBeLessThan(15000);
    await waitFor(() => port.kernelState() === 'idle', 5000);
    const after = await codeCell('print("still alive")');
    const next = await port.runCell(after.id);
    expect(next.status).toBe('ok');
    expect(stdout(next.outputs)).toBe('still alive\n');
  });

  it('the kernel listens on Unix sockets in the server’s private runtime directory, on no TCP port', async () => {
    const probe = await port.executeCode(
      [
        'import json, os, stat',
        'from ipykernel import get_connection_info',
        'info = json.loads(get_connection_info())',
        'folder = os.path.dirname(info["ip"])',
        'print(info["transport"], os.path.exists(f\'{info["ip"]}-{info["shell_port"]}\'), oct(stat.S_IMODE(os.stat(os.path.dirname(folder)).st_mode)))'
      ].join('\n'),
      { silent: true }
    );
    expect(probe.status).toBe('ok');
    // The socket's folder is the runtime directory, inside the server's
    // mkdtemp directory (mode 0700: no other user can reach a socket there).
    expect(stdout(probe.outputs)).toBe('ipc True 0o700\n');
  });

  it('runs scratch code silently without touching execution counts', async () => {
    const before = await port.getCells();
    const probe = await codeCell('1');
    const counted = await port.runCell(probe.id);
    const scratch = await port.executeCode('print(6 * 7)', { silent: true });
    expect(scratch.status).toBe('ok');
    expect(scratch.cellId).toBeNull();
    expect(stdout(scratch.outputs)).toBe('42\n');
    const again = await port.runCell(probe.id);
    // A silent execution does not increment the kernel's execution count.
    expect(again.executionCount).toBe(counted.executionCount! + 1);
    const after = await port.getCells();
    expect(after.slice(0, before.length).map(c => c.executionCount)).toEqual(
      before.map(c => c.executionCount)
    );
    const loud = await port.executeCode('x * 3');
    expect(loud.outputs[0]).toMatchObject({ data: { 'text/plain': '60' } });
  });

  it('after a KeyError, names the columns of the kernel’s DataFrames (a silent probe)', async () => {
    const cell = await codeCell(
      "import pandas as pd\ncustomers = pd.DataFrame({'customer_id': [1], 'city': ['Riga']})\ncustomers['City']"
    );
    const failed = await port.runCell(cell.id);
    expect(endedWithKeyError(failed)).toBe(true);
    const note = await frameColumns(port, new AbortController().signal);
    expect(note).toBe(
      'Columns of the DataFrames in the kernel now:\ncustomers: "customer_id", "city"'
    );
    // Silent: the next run counts on from the failed cell.
    const next = await port.runCell(cell.id);
    expect(next.executionCount).toBe(failed.executionCount! + 1);
  });

  it('the variables probe, in a real kernel: the tool’s list, a mention’s description, missing names, no trace left', async () => {
    const cell = await codeCell(
      "import pandas as pd\nsales = pd.DataFrame({'units': [1, 2, 3], 'region': ['N', 'S', 'N']})\ntotal = 42\ndef helper(): pass"
    );
    await port.runCell(cell.id);
    const signal = new AbortController().signal;
    const all = await probeVariables(
      port,
      { reprChars: 80, limit: 200 },
      signal,
      30_000
    );
    // The user's variables (earlier tests' too), not modules or functions.
    const names = all?.map(row => row.name) ?? [];
    expect(names).toEqual(expect.arrayContaining(['sales', 'total']));
    expect(names).not.toContain('pd');
    expect(names).not.toContain('helper');
    expect(all?.find(row => row.name === 'sales')).toMatchObject({
      type: 'pandas.DataFrame',
      shape: [3, 2],
      columns: [
        ['units', 'int64'],
        ['region', expect.any(String)]
      ],
      columnCount: 2
    });
    const named = await probeVariables(
      port,
      mentionProbe(['total', 'nope']),
      signal,
      30_000
    );
    expect(describeVariableRows(named!)).toBe(
      '@total: builtins.int; 42\n@nope: not defined in the kernel'
    );
    // It defines nothing that outlives it.
    const left = await port.executeCode(
      "print([n for n in globals() if 'notebook_agent' in n])"
    );
    expect(left.outputs[0]).toMatchObject({ text: '[]\n' });
  });

  it('lists and reads files relative to the server root', async () => {
    await writeFile(join(server.rootDir, 'notes.txt'), 'hello\nworld\n');
    await writeFile(
      join(server.rootDir, 'blob.bin'),
      Buffer.from([0xff, 0xfe, 0x00, 0x80])
    );
    const entries = await port.listFiles('');
    expect(entries).toEqual(
      expect.arrayContaining([
        { path: 'notes.txt', type: 'file', size: 12 },
        expect.objectContaining({ path: 'agent.ipynb', type: 'notebook' })
      ])
    );
    expect(await port.readFile('notes.txt')).toBe('hello\nworld\n');
    await expect(port.readFile('missing.txt')).rejects.toBeInstanceOf(
      NotebookPortError
    );
    await expect(port.readFile('missing.txt')).rejects.toThrow(/list_files/);
    await expect(port.readFile('blob.bin')).rejects.toThrow(/not a text file/);
    await expect(port.listFiles('notes.txt')).rejects.toBeInstanceOf(
      NotebookPortError
    );
  });

  it('takes new cells’ ids from newCellId: a file’s cells that had none, then inserted cells', async () => {
    // nbformat 4.4: no cell ids in the file.
    await writeFile(
      join(server.rootDir, 'ids.ipynb'),
      JSON.stringify({
        nbformat: 4,
        nbformat_minor: 4,
        metadata: {},
        cells: [
          {
            cell_type: 'code',
            source: 'a = 1',
            metadata: {},
            outputs: [],
            execution_count: null
          },
          { cell_type: 'markdown', source: '# notes', metadata: {} }
        ]
      })
    );
    let n = 0;
    const ids = await ServerNotebookPort.open({
      serverSettings: server.serverSettings,
      path: 'ids.ipynb',
      newCellId: () => `seeded-${n++}`
    });
    try {
      await ids.insertCell({ type: 'code', source: 'b = 2' });
      expect((await ids.getCells()).map(cell => cell.id)).toEqual([
        'seeded-0',
        'seeded-1',
        'seeded-2'
      ]);
    } finally {
      await ids.close({ shutdownKernel: true });
    }
    // The default stays JupyterLab's kind of id.
    const cell = await codeCell('c = 3');
    expect(cell.id).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
    );
  });

  it('refuses links that lead out of the server root', async () => {
    const outside = join(server.rootDir, '..', 'outside-secret.txt');
    await writeFile(outside, 'id_rsa contents');
    await mkdir(join(server.rootDir, 'data'), { recursive: true });
    await symlink(outside, join(server.rootDir, 'data', 'planted.txt'));
    await symlink(join(server.rootDir, '..'), join(server.rootDir, 'up'));
    // The contents API itself would follow both links.
    await expect(port.readFile('data/planted.txt')).rejects.toThrow(
      /link to a place outside the Jupyter server's root/
    );
    await expect(port.listFiles('up')).rejects.toThrow(/outside/);
    // Ordinary files next to them are still read.
    await writeFile(join(server.rootDir, 'data', 'fine.csv'), 'a\n1\n');
    expect(await port.readFile('data/fine.csv')).toBe('a\n1\n');
  });

  it('marks an edited cell stale', async () => {
    const cell = await codeCell('y = 1');
    await port.runCell(cell.id);
    const edited = await port.editCell(cell.id, 'y = 2');
    expect(edited.source).toBe('y = 2');
    const [seen] = (await port.getCells()).filter(c => c.id === cell.id);
    expect(seen.source).toBe('y = 2');
    expect(seen.lastRunSource).toBe('y = 1');
  });

  it('restores a cell’s outputs and execution count (Reject of a fix), leaving its source', async () => {
    const cell = await codeCell('print("before")');
    const first = await port.runCell(cell.id);
    await port.editCell(cell.id, 'print("after")');
    await port.runCell(cell.id);
    await port.restoreOutputs(cell.id, first.outputs, first.executionCount);
    const [restored] = (await port.getCells()).filter(c => c.id === cell.id);
    expect(stdout(restored.outputs)).toBe('before\n');
    expect(restored.executionCount).toBe(first.executionCount);
    expect(restored.source).toBe('print("after")');
  });

  it('reports kernel death without hanging, and recovers', async () => {
    const cell = await codeCell('import os; os._exit(1)');
    const started = Date.now();
    const result = await port.runCell(cell.id, { softTimeoutMs: 20000 });
    expect(result.status).toBe('kernel-died');
    expect(Date.now() - started).toBeLessThan(15000);
    expect(['restarting', 'starting', 'idle', 'busy']).toContain(
      port.kernelState()
    );
    // The server restarts the kernel; the port keeps working with it.
    await waitFor(() => port.kernelState() === 'idle', 15000);
    const probe = await codeCell('print("back")');
    const next = await port.runCell(probe.id, { hardTimeoutMs: 10000 });
    expect(next.status).toBe('ok');
    expect(stdout(next.outputs)).toBe('back\n');
    expect(next.executionCount).toBe(1);
  });

  it('restarts the kernel on request', async () => {
    await port.executeCode('z = 5');
    await port.restartKernel();
    expect(port.kernelState()).toMatch(/idle|busy/);
    const probe = await port.executeCode("print('z' in globals())");
    expect(stdout(probe.outputs)).toBe('False\n');
  });
});
