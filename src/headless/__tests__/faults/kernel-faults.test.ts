/**
 * Kernel- and notebook-side fault injection, headless: the real agent in a
 * real notebook on a real Jupyter server while its kernel dies, is
 * restarted by someone else, runs forever, asks for input(), floods stdout,
 * shows a huge image, while the notebook file changes on disk, while the
 * Jupyter server itself restarts, and with two runs at once.
 *
 * The model is the scripted server (directly; the model side has its own
 * suite). Each case asserts a bounded time, the observation the agent got
 * (what the user sees in the tool card), that the user's cells are intact
 * and that one undo restores the notebook.
 */
import { ContentsManager, KernelAPI } from '@jupyterlab/services';
import type { CellOutput } from '../../../agent/ports';
import { NotebookConflictError } from '../../server-port/disk-version';
import { JupyterServerProcess } from '../../servers/jupyter-server';
import { ServerNotebookPort } from '../../server-port/server-port';
import { runAgentOnce, type IRunReport } from './agent-run';
import { FaultSummary, type ICaseFindings } from './fault-summary';
import {
  kernelEvents,
  SECRET,
  startFaultStack,
  type IFaultStack
} from './fault-stack';
import {
  notebookDelta,
  sourcesOf,
  sourcesOnDisk,
  writeUserNotebook
} from './user-notebook';

jest.setTimeout(90000);

const summary = new FaultSummary('kernel and notebook faults', () =>
  kernelEvents(stack?.jupyter)
);
let stack: IFaultStack;
let port: ServerNotebookPort;
let original: Array<[string, string]>;
const PATH = 'kernel-faults.ipynb';

beforeAll(async () => {
  jest.spyOn(console, 'debug').mockImplementation(() => undefined);
  jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  jest.spyOn(console, 'error').mockImplementation(() => undefined);
  // No IOPub rate limit: floods of output must reach the port, whose own
  // bounds are under test (the server's default limit would drop them).
  stack = await startFaultStack([
    '--ZMQChannelsWebsocketConnection.iopub_data_rate_limit=0'
  ]);
  await writeUserNotebook(stack.jupyter.serverSettings, PATH);
  port = await ServerNotebookPort.open({
    serverSettings: stack.jupyter.serverSettings,
    path: PATH
  });
  original = sourcesOf(await port.getCells());
}, 90000);

/**
 * A failed case leaves its cells (its undo was not reached) and maybe a
 * busy kernel: put the user's notebook back, so that the cases after it
 * test what they name rather than fail on the cell count.
 */
afterEach(async () => {
  const cells = await port.getCells();
  const extra = cells.filter(cell => !original.some(([id]) => id === cell.id));
  if (extra.length === 0) {
    return;
  }
  for (const cell of extra) {
    await port.deleteCell(cell.id);
  }
  if (port.kernelState() !== 'idle') {
    await port.restartKernel();
  }
  await port.save();
}, 30000);

afterAll(async () => {
  summary.print();
  await port?.close({ shutdownKernel: true });
  await stack?.dispose();
}, 30000);

/** Turns that insert a code cell, run it, then answer. */
function insertAndRun(source: string, answer = 'Done.'): unknown[] {
  return [
    { tool_calls: [{ name: 'insert_cell', arguments: { source } }] },
    {
      tool_calls: [{ name: 'run_cell', arguments: { cell_id: '{{cell_id}}' } }]
    },
    { content: answer }
  ];
}

function toolMessages(report: IRunReport): string[] {
  return report.session.history
    .filter(m => m.role === 'tool')
    .map(m => m.content as string);
}

function streamText(outputs: CellOutput[]): string {
  return outputs.map(o => (o.type === 'stream' ? o.text : '')).join('');
}

async function until(
  predicate: () => boolean | Promise<boolean>,
  timeoutMs: number
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) {
      throw new Error(`condition not met within ${timeoutMs} ms`);
    }
    await new Promise(resolve => setTimeout(resolve, 50));
  }
}

/** Resolves once some cell of `target` printed `text`. */
function printed(target: ServerNotebookPort, text: string): Promise<void> {
  return until(
    async () =>
      (await target.getCells()).some(c => streamText(c.outputs).includes(text)),
    20000
  );
}

/**
 * Check the notebook after a run: the user's cells intact in memory and on
 * disk, `added` cells of the agent, then one undo restores it all.
 */
async function checkAndUndo(
  target: ServerNotebookPort,
  path: string,
  before: Array<[string, string]>,
  findings: ICaseFindings,
  added: number,
  report?: IRunReport
): Promise<void> {
  const cells = await target.getCells();
  const delta = notebookDelta(
    before.map(([id, source]) => ({
      id,
      source,
      type: 'code',
      executionCount: null,
      outputs: []
    })),
    cells
  );
  await target.save();
  const onDisk = await sourcesOnDisk(stack.jupyter.serverSettings, path);
  findings.cellsLost +=
    delta.lost.length +
    before.filter(([id, s]) => !onDisk.some(([i, d]) => i === id && d === s))
      .length;
  findings.leaks += [report?.transcript ?? '', JSON.stringify(onDisk)].filter(
    text => text.includes(SECRET)
  ).length;
  expect(delta.lost).toEqual([]);
  expect(delta.added).toHaveLength(added);
  expect(target.undo()).toBe(true);
  expect(sourcesOf(await target.getCells())).toEqual(before);
  await target.save();
  expect(await sourcesOnDisk(stack.jupyter.serverSettings, path)).toEqual(
    before
  );
}

/** Run `turns` in the shared notebook and return the report. */
async function play(
  turns: unknown[],
  options: {
    limitMs?: number;
    hardTimeoutMs?: number;
    during?: () => void;
  } = {}
): Promise<IRunReport> {
  await stack.model.script(turns);
  return runAgentOnce({
    model: stack.client('direct'),
    notebook: port,
    prompt: 'Fault case',
    limitMs: options.limitMs ?? 40000,
    ownsKernel: () => port.ownsKernel,
    runSettings: {
      softTimeoutMs: 15000,
      hardTimeoutMs: options.hardTimeoutMs ?? 20000,
      allowDeleteAnyCell: false
    },
    during: options.during
  });
}

describe('kernel and notebook faults', () => {
  it('the kernel dies mid-cell', async () => {
    await summary.run('kernel dies mid-cell', async findings => {
      const report = await play(
        insertAndRun(
          "print('about to die', flush=True)\nimport os\nos._exit(1)",
          'The kernel died.'
        )
      );
      expect(report.outcome?.reason).toBe('completed');
      expect(toolMessages(report)[1]).toMatch(/The kernel died while cell_id/);
      expect(report.ms).toBeLessThan(30000);
      await until(() => port.kernelState() === 'idle', 20000);
      await checkAndUndo(port, PATH, original, findings, 1, report);
    });
  });

  it('the user restarts the kernel mid-run', async () => {
    await summary.run(
      'kernel restarted by the user mid-run',
      async findings => {
        // The run ends as soon as the restart shows; the REST call returns
        // only once the new kernel answers. Until then a request sent (the
        // next test's) goes to the kernel being replaced and is lost.
        let restarted: Promise<unknown> = Promise.resolve();
        const report = await play(
          insertAndRun(
            "import time\nprint('working', flush=True)\ntime.sleep(20)",
            'The kernel was restarted.'
          ),
          {
            during: () => {
              restarted = printed(port, 'working').then(() =>
                KernelAPI.restartKernel(
                  port.kernel!.id,
                  stack.jupyter.serverSettings
                )
              );
            }
          }
        );
        await restarted;
        expect(report.outcome?.reason).toBe('completed');
        expect(toolMessages(report)[1]).toMatch(
          /The kernel was restarted \(by the user or another client\) while cell_id/
        );
        expect(report.ms).toBeLessThan(15000);
        await until(() => port.kernelState() === 'idle', 20000);
        await checkAndUndo(port, PATH, original, findings, 1, report);
      }
    );
  });

  it('a cell that never ends hits the hard timeout', async () => {
    await summary.run('a cell that never ends', async findings => {
      const report = await play(
        insertAndRun('while True:\n    pass', 'It never ended.'),
        { hardTimeoutMs: 2500 }
      );
      expect(report.outcome?.reason).toBe('completed');
      expect(toolMessages(report)[1]).toMatch(/hit the hard time limit/);
      expect(report.ms).toBeLessThan(15000);
      await until(() => port.kernelState() === 'idle', 10000);
      await checkAndUndo(port, PATH, original, findings, 1, report);
    });
  });

  it('a cell that ignores the interrupt is reported as still running', async () => {
    await summary.run('a cell that ignores interrupts', async findings => {
      const report = await play(
        insertAndRun(
          'import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    time.sleep(0.05)',
          'The kernel is stuck.'
        ),
        { hardTimeoutMs: 2000 }
      );
      expect(report.outcome?.reason).toBe('completed');
      expect(toolMessages(report)[1]).toMatch(
        /did not stop when interrupted.*restart_kernel/s
      );
      expect(report.ms).toBeLessThan(20000);
      await port.restartKernel();
      await checkAndUndo(port, PATH, original, findings, 1, report);
    });
  });

  it('input() is refused at once', async () => {
    await summary.run('input()', async findings => {
      const report = await play(insertAndRun("name = input('name?')"));
      expect(report.outcome?.reason).toBe('completed');
      expect(toolMessages(report)[1]).toMatch(
        /input\(\), which is not available/
      );
      expect(report.ms).toBeLessThan(10000);
      await checkAndUndo(port, PATH, original, findings, 1, report);
    });
  });

  it('50 MB of stdout keeps memory and the observation bounded', async () => {
    await summary.run('50 MB of stdout', async findings => {
      const rssBefore = process.memoryUsage().rss;
      const report = await play(
        insertAndRun(
          "import sys\nline = 'y' * 1023 + '\\n'\nfor _ in range(51200):\n    sys.stdout.write(line)\nprint('END')"
        ),
        { limitMs: 80000, hardTimeoutMs: 70000 }
      );
      const rssGrowth = process.memoryUsage().rss - rssBefore;
      expect(report.outcome?.reason).toBe('completed');
      const observation = toolMessages(report)[1];
      expect(observation).toMatch(/finished OK/);
      expect(observation).toMatch(/END/);
      expect(observation.length).toBeLessThan(5000);
      const cell = (await port.getCells()).at(-1)!;
      const kept = streamText(cell.outputs).length;
      // The cell keeps head and tail (a few MB), not 50 MB.
      if (kept > 4_000_000) {
        findings.leaks += 1;
      }
      expect(kept).toBeLessThan(4_000_000);
      expect(streamText(cell.outputs)).toMatch(/characters of output dropped/);
      expect(rssGrowth).toBeLessThan(400 * 1024 * 1024);
      await checkAndUndo(port, PATH, original, findings, 1, report);
    });
  });

  it('a huge image output is described, not pasted', async () => {
    await summary.run('huge image output', async findings => {
      const report = await play(
        insertAndRun(
          [
            'import base64, os, struct, zlib',
            'from IPython.display import display',
            'w, h = 1600, 1200',
            "raw = b''.join(b'\\x00' + os.urandom(w * 3) for _ in range(h))",
            "def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)",
            "png = b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0)) + chunk(b'IDAT', zlib.compress(raw, 1)) + chunk(b'IEND', b'')",
            "display({'image/png': base64.b64encode(png).decode()}, raw=True)"
          ].join('\n')
        )
      );
      expect(report.outcome?.reason).toBe('completed');
      const observation = toolMessages(report)[1];
      expect(observation).toMatch(/finished OK/);
      expect(observation).toMatch(/image/i);
      expect(observation.length).toBeLessThan(5000);
      const cell = (await port.getCells()).at(-1)!;
      const image = cell.outputs.find(o => o.type === 'display_data');
      expect(
        image?.type === 'display_data' &&
          String(image.data['image/png']).length > 7_000_000
      ).toBe(true);
      await checkAndUndo(port, PATH, original, findings, 1, report);
    });
  });

  it('the notebook file changed on disk mid-run is never overwritten', async () => {
    await summary.run('notebook file changed on disk', async findings => {
      const path = 'changed-on-disk.ipynb';
      const settings = stack.jupyter.serverSettings;
      await writeUserNotebook(settings, path);
      const own = await ServerNotebookPort.open({
        serverSettings: settings,
        path
      });
      const contents = new ContentsManager({ serverSettings: settings });
      try {
        const before = sourcesOf(await own.getCells());
        await stack.model.script(insertAndRun("print('agent')"));
        const userCell = {
          id: 'added-in-jupyterlab',
          cell_type: 'markdown',
          metadata: {},
          source: 'The user added this while the agent worked.'
        };
        const report = await runAgentOnce({
          model: stack.client('direct'),
          notebook: own,
          prompt: 'Fault case',
          limitMs: 30000,
          during: () => {
            // The user saves the notebook in JupyterLab meanwhile.
            void contents.get(path, { content: true }).then(model => {
              const nb = model.content as { cells: unknown[] };
              nb.cells.push(userCell);
              return contents.save(path, {
                type: 'notebook',
                format: 'json',
                content: nb
              });
            });
          }
        });
        expect(report.outcome?.reason).toBe('completed');
        await expect(own.save()).rejects.toBeInstanceOf(NotebookConflictError);
        await expect(own.save()).rejects.toThrow(/changed on disk/);
        // The user's change is on disk, untouched; the agent's work is kept aside.
        const disk = await sourcesOnDisk(settings, path);
        expect(disk).toEqual([...before, [userCell.id, userCell.source]]);
        findings.cellsLost = before.filter(
          ([id, s]) => !disk.some(([i, d]) => i === id && d === s)
        ).length;
        await own.saveCopy('changed-on-disk.agent.ipynb');
        const copy = await sourcesOnDisk(
          settings,
          'changed-on-disk.agent.ipynb'
        );
        expect(copy.slice(0, before.length)).toEqual(before);
        expect(copy).toHaveLength(before.length + 1);
        await expect(
          own.saveCopy('changed-on-disk.agent.ipynb')
        ).rejects.toThrow(/already exists/);
        // Overwriting stays possible, when asked for explicitly.
        expect(own.undo()).toBe(true);
        await own.save({ overwrite: true });
        expect(await sourcesOnDisk(settings, path)).toEqual(before);
      } finally {
        contents.dispose();
        await own.close({ shutdownKernel: true });
      }
    });
  });

  it('two agent runs on two notebooks at once stay apart', async () => {
    await summary.run('two runs on two notebooks at once', async findings => {
      const settings = stack.jupyter.serverSettings;
      const names = ['left', 'right'];
      const ports = await Promise.all(
        names.map(async name => {
          await writeUserNotebook(settings, `${name}.ipynb`);
          return ServerNotebookPort.open({
            serverSettings: settings,
            path: `${name}.ipynb`
          });
        })
      );
      try {
        const befores = await Promise.all(
          ports.map(async p => sourcesOf(await p.getCells()))
        );
        await Promise.all(
          names.map(name =>
            stack.model.script(
              [
                {
                  tool_calls: [
                    {
                      name: 'insert_cell',
                      arguments: {
                        source: `import time\nwho = '${name}'\ntime.sleep(1)\nprint(who)`
                      }
                    }
                  ]
                },
                {
                  tool_calls: [
                    { name: 'run_cell', arguments: { cell_id: '{{cell_id}}' } }
                  ]
                },
                {
                  tool_calls: [
                    { name: 'run_code', arguments: { code: 'print(who)' } }
                  ]
                },
                { content: `I am ${name}.` }
              ],
              name
            )
          )
        );
        const started = Date.now();
        const reports = await Promise.all(
          ports.map((p, i) =>
            runAgentOnce({
              model: stack.client('direct'),
              notebook: p,
              prompt: `[[script:${names[i]}]] Fault case`,
              limitMs: 30000
            })
          )
        );
        // They ran side by side, not one after the other.
        expect(Date.now() - started).toBeLessThan(
          reports[0].ms + reports[1].ms
        );
        reports.forEach((report, i) => {
          expect(report.outcome?.reason).toBe('completed');
          const [, ran, scratch] = toolMessages(report);
          expect(ran).toMatch(new RegExp(`finished OK[\\s\\S]*${names[i]}`));
          expect(scratch).toMatch(
            new RegExp(`finished OK[\\s\\S]*${names[i]}`)
          );
        });
        for (let i = 0; i < ports.length; i++) {
          await checkAndUndo(
            ports[i],
            `${names[i]}.ipynb`,
            befores[i],
            findings,
            1
          );
        }
      } finally {
        await Promise.all(ports.map(p => p.close({ shutdownKernel: true })));
      }
    });
  });

  it('the Jupyter server restarts mid-run: a clear observation, no hang', async () => {
    await summary.run('Jupyter server restarts mid-run', async findings => {
      const server = await JupyterServerProcess.start();
      let own: ServerNotebookPort | null = null;
      try {
        await writeUserNotebook(server.serverSettings, 'restart.ipynb');
        own = await ServerNotebookPort.open({
          serverSettings: server.serverSettings,
          path: 'restart.ipynb'
        });
        const target = own;
        const before = sourcesOf(await target.getCells());
        await stack.model.script([
          ...insertAndRun(
            "import time\nprint('working', flush=True)\ntime.sleep(30)"
          ).slice(0, 2),
          {
            tool_calls: [
              { name: 'run_code', arguments: { code: "print('after')" } }
            ]
          },
          { tool_calls: [{ name: 'restart_kernel', arguments: {} }] },
          {
            tool_calls: [
              { name: 'run_code', arguments: { code: "print('back')" } }
            ]
          },
          { content: 'The server restarted; the kernel is back.' }
        ]);
        const report = await runAgentOnce({
          model: stack.client('direct'),
          notebook: target,
          prompt: 'Fault case',
          limitMs: 60000,
          ownsKernel: () => target.ownsKernel,
          runSettings: {
            softTimeoutMs: 15000,
            hardTimeoutMs: 20000,
            allowDeleteAnyCell: false
          },
          during: () => {
            void printed(target, 'working').then(() => server.restart());
          }
        });
        expect(report.outcome?.reason).toBe('completed');
        const [, ran, after, restarted, back] = toolMessages(report);
        expect(ran).toMatch(/kernel (died|was restarted|is gone)|server/i);
        expect(after).toMatch(/kernel|restart_kernel/i);
        expect(restarted).not.toMatch(/Error/);
        expect(back).toMatch(/finished OK[\s\S]*back/);
        expect(report.ms).toBeLessThan(60000);
        const cells = await target.getCells();
        const delta = notebookDelta(
          before.map(([id, source]) => ({
            id,
            source,
            type: 'code' as const,
            executionCount: null,
            outputs: []
          })),
          cells
        );
        findings.cellsLost = delta.lost.length;
        expect(delta.lost).toEqual([]);
        expect(delta.added).toHaveLength(1);
        await target.save();
        expect(
          await sourcesOnDisk(server.serverSettings, 'restart.ipynb')
        ).toHaveLength(before.length + 1);
      } finally {
        // After a failure above the server may still be down: closing then
        // throws, and that error would hide the assertion that failed.
        await own
          ?.close({ shutdownKernel: true })
          .catch(error => console.warn(`close after the case: ${error}`));
        await server.dispose();
      }
    });
  });
});
