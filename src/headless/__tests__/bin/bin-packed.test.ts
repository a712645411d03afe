/**
 * The bin as a packed package: `npm pack` (whose `prepare` builds the
 * command line), the tarball installed into a temporary prefix
 * (`npm install -g --prefix`), `notebook-agent` run from that prefix's bin
 * on PATH, away from the checkout, with the private Jupyter server and with
 * --server. One install serves every test of the file.
 */
import { access, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  startScriptedServer,
  type IScriptedServer
} from '../../../agent/__tests__/fixtures/scripted-server';
import { JupyterServerProcess } from '../../servers/jupyter-server';
import {
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
let prefix: string;

/** Pack the checkout and install the tarball into a new prefix; the prefix. */
async function packAndInstall(): Promise<string> {
  const work = await mkdtemp(join(tmpdir(), 'bin-packed-'));
  const started = Date.now();
  const { stdout } = await exec(
    'npm',
    ['pack', '--pack-destination', work, '--loglevel=error'],
    { cwd: REPO }
  );
  const tarball = join(work, stdout.trim().split('\n').pop()!);
  const packed = Date.now();
  const target = join(work, 'prefix');
  await exec(
    'npm',
    [
      'install',
      '--global',
      '--prefix',
      target,
      tarball,
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '--onnxruntime-node-install=skip',
      '--loglevel=error'
    ],
    { cwd: work, maxBuffer: 16 * 1024 * 1024 }
  );
  process.stdout.write(
    `\npacked bin: npm pack ${((packed - started) / 1000).toFixed(1)} s, ` +
      `npm install -g of the tarball ${((Date.now() - packed) / 1000).toFixed(1)} s\n`
  );
  return target;
}

beforeAll(async () => {
  [model, jupyter, prefix] = await Promise.all([
    startScriptedServer(),
    JupyterServerProcess.start(),
    packAndInstall()
  ]);
}, 300_000);

afterAll(async () => {
  model?.stop();
  await jupyter?.dispose();
  // The install is some 800 MB (the extension's browser packages with it).
  if (prefix) {
    await rm(dirname(prefix), { recursive: true, force: true });
  }
});

/** The environment of a user who installed it: the prefix's bin first on PATH. */
const installedEnv = (extra: Record<string, string> = {}) =>
  binEnv(model.root, {
    PATH: `${join(prefix, 'bin')}:${process.env.PATH}`,
    ...extra
  });

describe('the bin installed from the packed tarball', () => {
  it('is on PATH, and runs without a TypeScript compiler in the install', async () => {
    const installed = join(
      prefix,
      'lib',
      'node_modules',
      'jupyterlab-notebook-agent'
    );
    await access(join(installed, 'lib', 'cli', 'notebook-agent.cjs'));
    for (const compiler of ['tsx', 'typescript', 'esbuild']) {
      await expect(
        access(join(installed, 'node_modules', compiler))
      ).rejects.toThrow();
    }
    const run = await runBin('notebook-agent', ['--help'], {
      cwd: tmpdir(),
      env: installedEnv()
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('notebook-agent generate "PROMPT"');
  });

  it('generate: a verified notebook, with the private server', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'packed-generate-'));
    await writeFile(join(cwd, 'data.csv'), DATA_CSV);
    await model.script(GENERATE_TURNS);
    const run = await runBin(
      'notebook-agent',
      [
        'generate',
        'Sum the values in data.csv',
        '--out',
        'analysis.ipynb',
        '--attach',
        'data.csv'
      ],
      { cwd, env: installedEnv() }
    );
    await expectVerified(run, 'analysis.ipynb', join(cwd, 'analysis.ipynb'));
    expect(privateServer(run)).toBeDefined();
  });

  it('generate --server: a verified notebook on the given server', async () => {
    await writeFile(join(jupyter.rootDir, 'data.csv'), DATA_CSV);
    await model.script(GENERATE_TURNS);
    const run = await runBin(
      'notebook-agent',
      [
        'generate',
        'Sum the values in data.csv',
        '--out',
        'analysis.ipynb',
        '--server',
        jupyter.baseUrl
      ],
      { cwd: tmpdir(), env: installedEnv({ JUPYTER_TOKEN: jupyter.token }) }
    );
    await expectVerified(
      run,
      'analysis.ipynb',
      join(jupyter.rootDir, 'analysis.ipynb')
    );
  });

  it('fix: edits and reruns the failing cell, prints the diff, with the private server', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'packed-fix-'));
    await writeFile(join(cwd, 'work.ipynb'), FAILING_NOTEBOOK);
    await model.script(FIX_TURNS);
    const run = await runBin(
      'notebook-agent',
      ['fix', 'work.ipynb', '--cell', 'b'],
      { cwd, env: installedEnv() }
    );
    await expectFixed(run, 'work.ipynb', join(cwd, 'work.ipynb'));
  });

  it('fix --server: fixes the notebook on the given server', async () => {
    await writeFile(join(jupyter.rootDir, 'work.ipynb'), FAILING_NOTEBOOK);
    await model.script(FIX_TURNS);
    const run = await runBin(
      'notebook-agent',
      ['fix', 'work.ipynb', '--cell', 'b', '--server', jupyter.baseUrl],
      { cwd: tmpdir(), env: installedEnv({ JUPYTER_TOKEN: jupyter.token }) }
    );
    await expectFixed(run, 'work.ipynb', join(jupyter.rootDir, 'work.ipynb'));
  });
});
