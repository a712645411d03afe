/**
 * Running `notebook-agent` the ways users get it, from a test: a child
 * process of the bin (from the checkout, through `npm run cli`, or
 * installed from the packed tarball), with the scripted model server as
 * the model; the scripts and notebooks of a `generate` and a `fix` run;
 * and what a test can see of the processes (peak memory, command lines).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

/** The checkout's root. */
export const REPO = resolve(__dirname, '..', '..', '..', '..');

/** The bin as the checkout has it. */
export const BIN = join(REPO, 'bin', 'notebook-agent.cjs');

/** Run a command to its end; rejects with its output when it fails. */
export const exec = promisify(execFile);

/** What a run of the bin did. */
export interface IBinRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Wall time, ms. */
  ms: number;
  /** Peak resident memory of the spawned process (VmHWM), KiB; 0 if unseen. */
  peakKib: number;
  /** Processes seen below it, by pid: the last command line and environment read. */
  descendants: Map<number, { argv: string[]; env: string[] }>;
}

/** How to run it. */
export interface IRunOptions {
  cwd: string;
  /** Added to the test's environment (undefined removes a variable). */
  env?: Record<string, string | undefined>;
  /**
   * Called every 50 ms while it runs, with what was seen so far, the
   * process and its output (to signal it at the right moment).
   */
  onPoll?: (run: IBinRun, child: ChildProcess) => void;
}

/** The environment a run gets: the test's, the scripted model, overrides. */
export function binEnv(
  modelRoot: string,
  extra: Record<string, string | undefined> = {}
): Record<string, string> {
  const env: Record<string, string | undefined> = {
    ...process.env,
    NOTEBOOK_AGENT_MODEL: 'scripted',
    OPENAI_API_KEY: 'k',
    OPENAI_BASE_URL: `${modelRoot}/v1`,
    NOTEBOOK_AGENT_DEBUG: undefined,
    JUPYTER_TOKEN: undefined,
    ...extra
  };
  return Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => {
      return entry[1] !== undefined;
    })
  );
}

/**
 * Start `command args` and wait for its end, watching its memory and the
 * processes it starts (every 50 ms).
 */
export function runBin(
  command: string,
  args: string[],
  options: IRunOptions
): Promise<IBinRun> {
  const started = Date.now();
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe']
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', chunk => (stdout += chunk));
  child.stderr.on('data', chunk => (stderr += chunk));
  const run: IBinRun = {
    code: null,
    stdout,
    stderr,
    ms: 0,
    peakKib: 0,
    descendants: new Map()
  };
  let watching = true;
  const watch = async () => {
    while (watching && child.pid) {
      run.peakKib = Math.max(run.peakKib, await peakKib(child.pid));
      for (const pid of await descendantsOf(child.pid)) {
        const argv = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(
          () => ''
        );
        const env = await readFile(`/proc/${pid}/environ`, 'utf8').catch(
          () => ''
        );
        if (argv) {
          run.descendants.set(pid, {
            argv: argv.split('\0').filter(Boolean),
            env: env.split('\0').filter(Boolean)
          });
        }
      }
      options.onPoll?.({ ...run, stdout, stderr }, child);
      await new Promise(resolve => setTimeout(resolve, 50));
    }
  };
  const watcher = watch();
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', async code => {
      watching = false;
      await watcher;
      resolve({ ...run, code, stdout, stderr, ms: Date.now() - started });
    });
  });
}

/** VmHWM of `pid` in KiB (0 once it is gone). */
async function peakKib(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const match = /^VmHWM:\s+(\d+) kB/m.exec(status);
  return match ? Number(match[1]) : 0;
}

/** Every live process below `root`. */
async function descendantsOf(root: number): Promise<number[]> {
  const parents = new Map<number, number>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) {
      continue;
    }
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    // "pid (comm) state ppid …": comm may hold spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields.length > 1) {
      parents.set(Number(entry), Number(fields[1]));
    }
  }
  const found: number[] = [];
  const below = new Set([root]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, parent] of parents) {
      if (below.has(parent) && !below.has(pid)) {
        below.add(pid);
        found.push(pid);
        grew = true;
      }
    }
  }
  return found;
}

/** The Jupyter server a run started, as the watcher saw it. */
export function privateServer(
  run: IBinRun
): { argv: string[]; env: string[] } | undefined {
  return [...run.descendants.values()].find(p =>
    p.argv.some(arg => arg.startsWith('--ServerApp.root_dir='))
  );
}

/** The model's turns of a `generate` run that sums data.csv. */
export const GENERATE_TURNS = [
  {
    tool_calls: [
      {
        name: 'insert_cell',
        arguments: {
          source:
            "import csv\nrows = list(csv.DictReader(open('data.csv')))\nprint(sum(int(r['value']) for r in rows))"
        }
      }
    ]
  },
  { tool_calls: [{ name: 'run_cell', arguments: { cell_id: '{{cell_id}}' } }] },
  { content: 'The total is 6.' }
];

/** The data.csv the generate run sums (to 6). */
export const DATA_CSV = 'value\n1\n2\n3\n';

/** A notebook whose cell "b" fails (y is undefined). */
export const FAILING_NOTEBOOK = JSON.stringify({
  cells: [
    {
      id: 'a',
      cell_type: 'code',
      source: 'x = 21',
      metadata: {},
      outputs: [],
      execution_count: null
    },
    {
      id: 'b',
      cell_type: 'code',
      source: 'print(x * y)',
      metadata: {},
      outputs: [],
      execution_count: null
    }
  ],
  metadata: { kernelspec: { name: 'python3', display_name: 'Python 3' } },
  nbformat: 4,
  nbformat_minor: 5
});

/** The model's turns of a `fix` run of FAILING_NOTEBOOK's cell "b". */
export const FIX_TURNS = [
  { tool_calls: [{ name: 'run_cell', arguments: { cell_id: 'a' } }] },
  {
    tool_calls: [
      { name: 'edit_cell', arguments: { cell_id: 'b', source: 'print(x * 2)' } }
    ]
  },
  { tool_calls: [{ name: 'run_cell', arguments: { cell_id: 'b' } }] },
  { content: 'y was never defined; it is 2.' }
];

/** A saved notebook, as far as the tests read it. */
export interface INotebookJson {
  cells: Array<{
    id: string;
    cell_type: string;
    source: string | string[];
    execution_count?: number | null;
    outputs?: Array<{ text?: string | string[] }>;
  }>;
}

/** Multiline nbformat text as one string. */
export const text = (value: string | string[] | undefined): string =>
  Array.isArray(value) ? value.join('') : (value ?? '');

/** Read a notebook file. */
export async function readNotebook(file: string): Promise<INotebookJson> {
  return JSON.parse(await readFile(file, 'utf8')) as INotebookJson;
}

/**
 * What a generate run from GENERATE_TURNS must leave: exit 0, "verified",
 * one code cell run after the kernel restart (count 1) that printed 6.
 */
export async function expectVerified(
  run: IBinRun,
  out: string,
  file: string
): Promise<void> {
  expect(run.stderr).toContain('Verified: the kernel restarted');
  expect(run.stdout.trim()).toBe(`${out}: verified`);
  expect(run.code).toBe(0);
  const cells = (await readNotebook(file)).cells.filter(
    c => c.cell_type === 'code'
  );
  expect(cells).toHaveLength(1);
  expect(cells[0].execution_count).toBe(1);
  expect(text(cells[0].outputs?.[0]?.text)).toBe('6\n');
}

/** What a fix run from FIX_TURNS must leave: exit 0, the diff, the fixed cell's output. */
export async function expectFixed(
  run: IBinRun,
  notebook: string,
  file: string
): Promise<void> {
  expect(run.stdout).toContain('-print(x * y)');
  expect(run.stdout).toContain('+print(x * 2)');
  expect(run.stdout).toContain(`${notebook}: fixed in 1 attempt(s).`);
  expect(run.code).toBe(0);
  const saved = await readNotebook(file);
  expect(text(saved.cells[1].source)).toBe('print(x * 2)');
  expect(text(saved.cells[1].outputs?.[0]?.text)).toBe('42\n');
  expect(text(saved.cells[0].source)).toBe('x = 21');
}
