/**
 * `npm run eval -- --server URL` as a user runs it: the harness as a
 * process, its notebooks and kernels on a Jupyter server that was already
 * running (a real one, started here, standing for a remote one), its token
 * from $JUPYTER_TOKEN, the scripted model server over HTTP.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  startScriptedServer,
  type IScriptedServer
} from '../../src/agent/__tests__/fixtures/scripted-server';
import { JupyterServerProcess } from '../../src/headless/servers/jupyter-server';
import {
  REPO,
  binEnv,
  runBin
} from '../../src/headless/__tests__/bin/bin-fixture';

jest.setTimeout(120_000);

let model: IScriptedServer;
let jupyter: JupyterServerProcess;
let dir: string;

beforeAll(async () => {
  [model, jupyter] = await Promise.all([
    startScriptedServer(),
    JupyterServerProcess.start()
  ]);
  dir = await mkdtemp(join(tmpdir(), 'eval-given-'));
  await writeFile(join(dir, 'data.csv'), 'a\n1\n2\n3\n');
  await writeFile(
    join(dir, 'set.json'),
    JSON.stringify({
      name: 'given',
      tasks: [
        {
          id: 'sum',
          prompt: 'What is the sum of column a in data.csv?',
          files: ['data.csv'],
          checker: {
            type: 'all',
            checks: [
              { type: 'answer', expected: 6, tolerance: 0 },
              // Runs in the task's final kernel, on the given server.
              { type: 'python', code: 'assert total == 6' }
            ]
          }
        }
      ]
    })
  );
  // Something of the user's in the server's root: it must stay as it is.
  await writeFile(join(jupyter.rootDir, 'data.csv'), 'mine\n');
}, 120_000);

afterAll(async () => {
  model?.stop();
  await jupyter?.dispose();
  await rm(dir, { recursive: true, force: true });
});

const evalArgs = (out: string) => [
  'run',
  '--silent',
  '--prefix',
  REPO,
  'eval',
  '--',
  '--tasks',
  join(dir, 'set.json'),
  '--data-dir',
  dir,
  '--server',
  jupyter.baseUrl,
  '--concurrency',
  '1',
  '--timeout',
  '60',
  '--out',
  out
];

describe('npm run eval -- --server URL', () => {
  it('runs the task on the given server, in a folder of its own, and scores it', async () => {
    await model.script([
      {
        tool_calls: [
          {
            name: 'insert_cell',
            arguments: {
              source:
                "import pandas as pd\ntotal = int(pd.read_csv('data.csv')['a'].sum())\nprint(total)"
            }
          }
        ]
      },
      {
        tool_calls: [
          { name: 'run_cell', arguments: { cell_id: '{{cell_id}}' } }
        ]
      },
      { content: 'The cell printed the total.\n\nANSWER: 6' }
    ]);
    const out = join(dir, 'out');
    const run = await runBin('npm', evalArgs(out), {
      cwd: dir,
      env: binEnv(model.root, { JUPYTER_TOKEN: jupyter.token })
    });
    expect({ code: run.code, stderr: run.stderr }).toEqual({
      code: 0,
      stderr: expect.any(String)
    });
    expect(run.stdout).toMatch(/PASS sum \(completed, 3 steps/);
    // The token never went on a command line.
    for (const seen of run.descendants.values()) {
      expect(seen.argv.join(' ')).not.toContain(jupyter.token);
    }

    const report = JSON.parse(
      await readFile(join(out, 'results.json'), 'utf8')
    ) as {
      info: { jupyterServer?: string };
      summary: { succeeded: number; tasks: number };
    };
    expect(report.summary).toMatchObject({ tasks: 1, succeeded: 1 });
    expect(report.info.jupyterServer).toBe(jupyter.baseUrl);
    expect(await readFile(join(out, 'results.md'), 'utf8')).toContain(
      `notebooks and kernels on the Jupyter server at ${jupyter.baseUrl}`
    );

    // The notebook and its data are on the server, under the run's folder.
    const runs = await readdir(join(jupyter.rootDir, 'notebook-agent-eval'));
    expect(runs).toHaveLength(1);
    const folder = join(jupyter.rootDir, 'notebook-agent-eval', runs[0], 'sum');
    expect(await readFile(join(folder, 'data.csv'), 'utf8')).toBe(
      'a\n1\n2\n3\n'
    );
    const onServer = await readFile(join(folder, 'sum.ipynb'), 'utf8');
    expect(onServer).toContain('total = int(');
    // The copy kept with the results is that notebook, outputs included.
    const kept = JSON.parse(
      await readFile(join(out, 'notebooks', 'sum.ipynb'), 'utf8')
    ) as { cells: Array<{ outputs?: Array<{ text?: string | string[] }> }> };
    expect(JSON.stringify(kept.cells[0].outputs)).toContain('6');
    // The user's own file in the root is untouched.
    expect(await readFile(join(jupyter.rootDir, 'data.csv'), 'utf8')).toBe(
      'mine\n'
    );
  });

  it('a wrong token: exit 1, the server named and what to do, nothing written', async () => {
    const out = join(dir, 'refused');
    const run = await runBin('npm', evalArgs(out), {
      cwd: dir,
      env: binEnv(model.root, { JUPYTER_TOKEN: 'not-the-token' })
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `the Jupyter server at ${jupyter.baseUrl} refused the token`
    );
    expect(run.stderr).toContain('JUPYTER_TOKEN');
    expect(existsSync(out)).toBe(false);
  });
});
