/**
 * The bin as a checkout has it after `npm ci` (whose `prepare` builds the
 * command line): `node bin/notebook-agent.cjs …` and `npm run cli -- …`,
 * each with the private Jupyter server the command starts and with a
 * running one given by --server. Real processes throughout: the bin, a
 * real Jupyter server and kernel, the scripted model server over HTTP.
 */
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  startScriptedServer,
  type IScriptedServer
} from '../../../agent/__tests__/fixtures/scripted-server';
import { JupyterServerProcess } from '../../servers/jupyter-server';
import {
  BIN,
  DATA_CSV,
  FAILING_NOTEBOOK,
  FIX_TURNS,
  GENERATE_TURNS,
  REPO,
  binEnv,
  exec,
  expectFixed,
  expectVerified,
  privateServer,
  runBin
} from './bin-fixture';

jest.setTimeout(120_000);

let model: IScriptedServer;
let jupyter: JupyterServerProcess;

beforeAll(async () => {
  [model, jupyter] = await Promise.all([
    startScriptedServer(),
    JupyterServerProcess.start(),
    // What `npm ci` runs once the packages are in place.
    exec('npm', ['run', 'prepare'], { cwd: REPO })
  ]);
}, 120_000);

afterAll(async () => {
  model?.stop();
  await jupyter?.dispose();
});

const npmCli = (args: string[]) => [
  'run',
  '--silent',
  '--prefix',
  REPO,
  'cli',
  '--',
  ...args
];

describe('the bin from the checkout', () => {
  it('node bin/notebook-agent.cjs generate: a verified notebook; the private server got its token in its environment, not its command line', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'bin-generate-'));
    await writeFile(join(cwd, 'data.csv'), DATA_CSV);
    await model.script(GENERATE_TURNS);
    const run = await runBin(
      process.execPath,
      [
        BIN,
        'generate',
        'Sum the values in data.csv',
        '--out',
        'analysis.ipynb',
        '--attach',
        'data.csv'
      ],
      { cwd, env: binEnv(model.root) }
    );
    await expectVerified(run, 'analysis.ipynb', join(cwd, 'analysis.ipynb'));
    const server = privateServer(run);
    expect(server).toBeDefined();
    const token = server!.env
      .find(v => v.startsWith('JUPYTER_TOKEN='))
      ?.slice('JUPYTER_TOKEN='.length);
    expect(token).toMatch(/^[0-9a-f]{48}$/);
    expect(server!.argv.join(' ')).not.toContain(token);
    expect(server!.argv.join(' ')).not.toMatch(/token/i);
  });

  it('npm run cli -- fix: edits and reruns the cell, prints the diff; paths are where npm was run', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'bin-fix-'));
    await writeFile(join(cwd, 'work.ipynb'), FAILING_NOTEBOOK);
    await model.script(FIX_TURNS);
    const run = await runBin(
      'npm',
      npmCli(['fix', 'work.ipynb', '--cell', 'b']),
      {
        cwd,
        env: binEnv(model.root)
      }
    );
    await expectFixed(run, 'work.ipynb', join(cwd, 'work.ipynb'));
  });

  it('node bin/notebook-agent.cjs generate --server: the notebook is written on the given server', async () => {
    await mkdir(join(jupyter.rootDir, 'gen'));
    await writeFile(join(jupyter.rootDir, 'gen', 'data.csv'), DATA_CSV);
    await model.script(GENERATE_TURNS);
    const cwd = await mkdtemp(join(tmpdir(), 'bin-generate-server-'));
    const run = await runBin(
      process.execPath,
      [
        BIN,
        'generate',
        'Sum the values in data.csv',
        '--out',
        'gen/analysis.ipynb',
        '--server',
        jupyter.baseUrl
      ],
      { cwd, env: binEnv(model.root, { JUPYTER_TOKEN: jupyter.token }) }
    );
    await expectVerified(
      run,
      'gen/analysis.ipynb',
      join(jupyter.rootDir, 'gen', 'analysis.ipynb')
    );
    // No private server was started.
    expect(privateServer(run)).toBeUndefined();
  });

  it('npm run cli -- fix --server: fixes the notebook on the given server', async () => {
    await writeFile(join(jupyter.rootDir, 'served.ipynb'), FAILING_NOTEBOOK);
    await model.script(FIX_TURNS);
    const cwd = await mkdtemp(join(tmpdir(), 'bin-fix-server-'));
    const run = await runBin(
      'npm',
      npmCli([
        'fix',
        'served.ipynb',
        '--cell',
        'b',
        '--server',
        jupyter.baseUrl
      ]),
      { cwd, env: binEnv(model.root, { JUPYTER_TOKEN: jupyter.token }) }
    );
    await expectFixed(
      run,
      'served.ipynb',
      join(jupyter.rootDir, 'served.ipynb')
    );
    expect(
      await readFile(join(jupyter.rootDir, 'served.ipynb'), 'utf8')
    ).not.toContain('x * y');
  });
});
