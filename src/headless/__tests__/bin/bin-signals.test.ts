/**
 * Ctrl-C through the bin, as a terminal sends it (SIGINT to the command;
 * the private Jupyter server runs in its own process group and gets
 * nothing from the terminal): the first Ctrl-C during a run stops the run
 * and keeps the notebook; a second one, or one before the run starts,
 * quits at once — and in every case the private server and its kernels
 * are gone afterwards.
 */
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  startScriptedServer,
  type IScriptedServer
} from '../../../agent/__tests__/fixtures/scripted-server';
import { BIN, REPO, binEnv, exec, runBin, type IBinRun } from './bin-fixture';

jest.setTimeout(120_000);

let model: IScriptedServer;

beforeAll(async () => {
  [model] = await Promise.all([
    startScriptedServer(),
    exec('npm', ['run', 'build:cli'], { cwd: REPO })
  ]);
}, 120_000);

afterAll(() => model?.stop());

/** A run whose cell sleeps long enough to be interrupted. */
const SLEEPING_TURNS = [
  {
    tool_calls: [
      {
        name: 'insert_cell',
        arguments: { source: 'import time\ntime.sleep(300)' }
      }
    ]
  },
  {
    tool_calls: [{ name: 'run_cell', arguments: { cell_id: '{{cell_id}}' } }]
  },
  { content: 'Done.' }
];

/** Pids of the processes the run started that match `test` (by argv). */
function pidsOf(run: IBinRun, test: (argv: string[]) => boolean): number[] {
  return [...run.descendants.entries()]
    .filter(([, seen]) => test(seen.argv))
    .map(([pid]) => pid);
}
const isServer = (argv: string[]) =>
  argv.some(arg => arg.startsWith('--ServerApp.root_dir='));
const isKernel = (argv: string[]) =>
  argv.some(arg => arg.includes('ipykernel_launcher'));

/** Whether `pid` is still a live process (a zombie counts as gone). */
async function alive(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  return stat !== '' && stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
}

/** Every pid in `pids` gone within `ms`; the ones still there otherwise. */
async function goneWithin(pids: number[], ms: number): Promise<number[]> {
  const until = Date.now() + ms;
  for (;;) {
    const left: number[] = [];
    for (const pid of pids) {
      if (await alive(pid)) {
        left.push(pid);
      }
    }
    if (!left.length || Date.now() > until) {
      return left;
    }
    await new Promise(resolve => setTimeout(resolve, 200));
  }
}

/** Run `generate`, sending SIGINT `times` times once `when` holds. */
async function generateInterrupted(
  when: (run: IBinRun) => boolean,
  times: number
): Promise<{ run: IBinRun; cwd: string }> {
  const cwd = await mkdtemp(join(tmpdir(), 'bin-signals-'));
  let sent = 0;
  const run = await runBin(
    process.execPath,
    [BIN, 'generate', 'Wait a while', '--out', 'slow.ipynb'],
    {
      cwd,
      env: binEnv(model.root),
      // One Ctrl-C, and the next once the command has answered the one
      // before (two signals sent at once arrive as one).
      onPoll: (seen, child) => {
        const answered = seen.stderr.split('stopping the run').length - 1;
        if (sent < times && when(seen) && answered === sent) {
          child.kill('SIGINT');
          sent++;
        }
      }
    }
  );
  expect(sent).toBe(times);
  return { run, cwd };
}

/**
 * True from 2 s after the cell was inserted with the kernel up: run_cell
 * follows at once, so by then the sleeping cell is executing.
 */
function cellRunning(): (run: IBinRun) => boolean {
  let since = 0;
  return seen => {
    if (!since && /\[insert_cell\] done/.test(seen.stderr)) {
      since = Date.now();
    }
    return (
      since > 0 &&
      Date.now() - since > 2000 &&
      pidsOf(seen, isKernel).length > 0
    );
  };
}

describe('Ctrl-C in notebook-agent', () => {
  it('while the private server starts: quits at once (130), the server is gone', async () => {
    await model.script(SLEEPING_TURNS);
    const { run } = await generateInterrupted(
      seen => pidsOf(seen, isServer).length > 0,
      1
    );
    expect(run.code).toBe(130);
    const servers = pidsOf(run, isServer);
    expect(servers.length).toBeGreaterThan(0);
    expect(await goneWithin(servers, 15_000)).toEqual([]);
  });

  it('once during a run: the run stops, the notebook keeps the agent cell, server and kernel are gone', async () => {
    await model.script(SLEEPING_TURNS);
    const { run, cwd } = await generateInterrupted(cellRunning(), 1);
    expect(run.stderr).toContain('stopping the run');
    expect(run.stdout).toContain(
      'slow.ipynb: stopped (it keeps what the agent did so far; not verified)'
    );
    expect(run.code).toBe(1);
    const notebook = JSON.parse(
      await readFile(join(cwd, 'slow.ipynb'), 'utf8')
    ) as { cells: Array<{ source: string | string[] }> };
    expect(JSON.stringify(notebook.cells)).toContain('time.sleep(300)');
    const left = await goneWithin(
      [...pidsOf(run, isServer), ...pidsOf(run, isKernel)],
      15_000
    );
    expect(left).toEqual([]);
  });

  it('twice during a run: quits at once (130), server and kernel are gone', async () => {
    await model.script(SLEEPING_TURNS);
    const { run } = await generateInterrupted(cellRunning(), 2);
    expect(run.code).toBe(130);
    const kernels = pidsOf(run, isKernel);
    expect(kernels.length).toBeGreaterThan(0);
    const left = await goneWithin(
      [...pidsOf(run, isServer), ...kernels],
      15_000
    );
    expect(left).toEqual([]);
  });
});
