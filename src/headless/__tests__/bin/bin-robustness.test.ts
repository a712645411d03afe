/**
 * Bad input and unreachable servers, through the bin as users run it: every
 * case ends with a message that names what is wrong (and what to do), loses
 * nothing of the user's, and leaves nothing behind; nothing hangs.
 */
import { createServer, type Server, type Socket } from 'node:net';
import {
  chmod,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  symlink,
  truncate,
  writeFile
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  freePort,
  startScriptedServer,
  type IScriptedServer
} from '../../../agent/__tests__/fixtures/scripted-server';
import { parseCli } from '../../cli/cli-args';
import { JupyterServerProcess } from '../../servers/jupyter-server';
import {
  BIN,
  DATA_CSV,
  GENERATE_TURNS,
  REPO,
  binEnv,
  exec,
  expectVerified,
  runBin,
  type IRunOptions
} from './bin-fixture';

jest.setTimeout(120_000);

let model: IScriptedServer;
let jupyter: JupyterServerProcess;
/** Accepts connections and never answers. */
let silent: Server;
let silentUrl: string;
const sockets: Socket[] = [];

beforeAll(async () => {
  silent = createServer(socket => sockets.push(socket));
  await new Promise<void>(resolve => silent.listen(0, '127.0.0.1', resolve));
  const address = silent.address();
  silentUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/`;
  [model, jupyter] = await Promise.all([
    startScriptedServer(),
    JupyterServerProcess.start(),
    exec('npm', ['run', 'build:cli'], { cwd: REPO })
  ]);
}, 120_000);

afterAll(async () => {
  sockets.forEach(socket => socket.destroy());
  silent?.close();
  model?.stop();
  await jupyter?.dispose();
});

const bin = (args: string[], options: IRunOptions) =>
  runBin(process.execPath, [BIN, ...args], options);

/** Every path under `dir` (relative), sorted. */
async function tree(dir: string, prefix = ''): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = prefix + entry.name;
    found.push(path);
    if (entry.isDirectory()) {
      found.push(...(await tree(join(dir, entry.name), `${path}/`)));
    }
  }
  return found.sort();
}

/** The first user message the model received. */
async function firstPrompt(): Promise<string> {
  const [first] = await model.received<{
    body: { messages: Array<{ role: string; content: string }> };
  }>();
  return first?.body.messages.find(m => m.role === 'user')?.content ?? '';
}

describe('--attach', () => {
  it('never replaces a file next to the notebook; a symlink is copied as its target, permissions kept; a file already there is used in place', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'bin-attach-'));
    const out = join(cwd, 'out');
    await mkdir(out);
    // The user's own data.csv beside the notebook: must survive.
    await writeFile(join(out, 'data.csv'), 'the user’s own file\n');
    await writeFile(join(cwd, 'data.csv'), DATA_CSV);
    await writeFile(join(cwd, 'secret.csv'), 'value\n7\n');
    await chmod(join(cwd, 'secret.csv'), 0o600);
    await symlink(join(cwd, 'secret.csv'), join(cwd, 'link.csv'));
    await writeFile(join(out, 'here.csv'), 'value\n5\n');
    // The script reads data-1.csv: the name the copy must get.
    await model.script(
      JSON.parse(
        JSON.stringify(GENERATE_TURNS).replace('data.csv', 'data-1.csv')
      )
    );
    const run = await bin(
      [
        'generate',
        'Sum the values',
        '--out',
        'out/analysis.ipynb',
        '--attach',
        'data.csv',
        '--attach',
        'link.csv',
        '--attach',
        'out/here.csv'
      ],
      { cwd, env: binEnv(model.root) }
    );
    await expectVerified(
      run,
      'out/analysis.ipynb',
      join(out, 'analysis.ipynb')
    );
    expect(await readFile(join(out, 'data.csv'), 'utf8')).toBe(
      'the user’s own file\n'
    );
    expect(await readFile(join(out, 'data-1.csv'), 'utf8')).toBe(DATA_CSV);
    const link = await lstat(join(out, 'link.csv'));
    expect(link.isFile()).toBe(true);
    expect(link.mode & 0o777).toBe(0o600);
    expect(await readFile(join(out, 'link.csv'), 'utf8')).toBe('value\n7\n');
    // In place: not copied again.
    expect(await tree(out)).toEqual([
      'analysis.ipynb',
      'data-1.csv',
      'data.csv',
      'here.csv',
      'link.csv'
    ]);
    const prompt = await firstPrompt();
    expect(prompt).toContain('- data-1.csv (');
    expect(prompt).toContain('- link.csv (');
    expect(prompt).toContain('- here.csv (');
  });

  it('with --server: copied through the contents API in chunks, under a free name', async () => {
    const dir = join(jupyter.rootDir, 'attach');
    await mkdir(dir);
    await writeFile(join(dir, 'data.csv'), 'the user’s own file\n');
    const cwd = await mkdtemp(join(tmpdir(), 'bin-attach-server-'));
    // 3.5 MiB of varied bytes: four chunks, the last one short.
    const big = Buffer.alloc(3.5 * 1024 * 1024);
    for (let i = 0; i < big.length; i++) {
      big[i] = (i * 7 + (i >> 12)) & 0xff;
    }
    await writeFile(join(cwd, 'data.csv'), big);
    await model.script([{ content: 'Attached.' }]);
    const run = await bin(
      [
        'generate',
        'Look at data.csv',
        '--out',
        'attach/analysis.ipynb',
        '--attach',
        'data.csv',
        '--server',
        jupyter.baseUrl
      ],
      { cwd, env: binEnv(model.root, { JUPYTER_TOKEN: jupyter.token }) }
    );
    expect(run.stderr).not.toContain('Error');
    expect(await readFile(join(dir, 'data.csv'), 'utf8')).toBe(
      'the user’s own file\n'
    );
    expect((await readFile(join(dir, 'data-1.csv'))).equals(big)).toBe(true);
    expect(await firstPrompt()).toContain('- data-1.csv (');
  });

  it('a failed start leaves nothing behind: no notebook, no copies, no folder; --force puts the old notebook back', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'bin-nothing-left-'));
    await writeFile(join(cwd, 'data.csv'), DATA_CSV);
    const before = await tree(cwd);
    const refuse = [
      { status: 401, error: { message: 'Incorrect API key provided' } }
    ];
    await model.script(refuse);
    const run = await bin(
      [
        'generate',
        'Sum',
        '--out',
        'new/folder/analysis.ipynb',
        '--attach',
        'data.csv'
      ],
      { cwd, env: binEnv(model.root) }
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('Incorrect API key provided');
    expect(run.stderr).toContain('new/folder/analysis.ipynb was not created');
    expect(await tree(cwd)).toEqual(before);

    // Through --server (the contents API): the copy is deleted, the old
    // notebook put back; a kernel that cannot start, the same.
    const served = join(jupyter.rootDir, 'failed');
    await mkdir(served);
    await writeFile(join(served, 'mine.ipynb'), '{"the": "user’s bytes"}');
    const onServer = await tree(served);
    const env = binEnv(model.root, { JUPYTER_TOKEN: jupyter.token });
    await model.script(refuse);
    const forced = await bin(
      [
        'generate',
        'Sum',
        '--out',
        'failed/mine.ipynb',
        '--force',
        '--attach',
        'data.csv',
        '--server',
        jupyter.baseUrl
      ],
      { cwd, env }
    );
    expect(forced.code).toBe(1);
    expect(forced.stderr).toContain('Incorrect API key provided');
    expect(await readFile(join(served, 'mine.ipynb'), 'utf8')).toBe(
      '{"the": "user’s bytes"}'
    );
    expect(await tree(served)).toEqual(onServer);
    const kernel = await bin(
      [
        'generate',
        'Sum',
        '--out',
        'failed/k.ipynb',
        '--kernel',
        'no-such-kernel',
        '--server',
        jupyter.baseUrl
      ],
      { cwd, env }
    );
    expect(kernel.code).toBe(1);
    expect(kernel.stderr).toContain('no-such-kernel');
    expect(await tree(served)).toEqual(onServer);
    expect(await tree(cwd)).toEqual(before);
  });

  it('a huge attachment is copied in bounded memory: 450 MB on disk, 128 MB through --server (sparse files)', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'bin-huge-'));
    try {
      const sparse = async (name: string, size: number) => {
        await writeFile(join(cwd, name), '');
        await truncate(join(cwd, name), size);
      };
      await sparse('huge.bin', 450 * 1024 * 1024);
      await sparse('big.bin', 128 * 1024 * 1024);
      await mkdir(join(cwd, 'out'));
      await model.script([{ content: 'Noted.' }]);
      const disk = await bin(
        ['generate', 'Look', '--out', 'out/a.ipynb', '--attach', 'huge.bin'],
        { cwd, env: binEnv(model.root) }
      );
      expect(disk.stderr).not.toContain('Error');
      expect((await stat(join(cwd, 'out', 'huge.bin'))).size).toBe(
        450 * 1024 * 1024
      );
      await model.script([{ content: 'Noted.' }]);
      const served = await bin(
        [
          'generate',
          'Look',
          '--out',
          'big.ipynb',
          '--attach',
          'big.bin',
          '--server',
          jupyter.baseUrl
        ],
        { cwd, env: binEnv(model.root, { JUPYTER_TOKEN: jupyter.token }) }
      );
      expect(served.stderr).not.toContain('Error');
      expect((await stat(join(jupyter.rootDir, 'big.bin'))).size).toBe(
        128 * 1024 * 1024
      );
      // Reading the file whole took 1.15 GB at 450 MB (the file, its base64,
      // the request); a run needs about 90 MB, chunked uploads up to ~175.
      for (const run of [disk, served]) {
        expect(run.peakKib).toBeGreaterThan(0);
        expect(run.peakKib).toBeLessThan(250 * 1024);
      }
    } finally {
      // Disk space: a copy need not be sparse.
      await rm(cwd, { recursive: true, force: true });
      await rm(join(jupyter.rootDir, 'big.bin'), { force: true });
    }
  });

  it('a missing or unreadable attachment is refused before anything is written', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'bin-missing-attach-'));
    await symlink(join(cwd, 'gone.csv'), join(cwd, 'dangling.csv'));
    await mkdir(join(cwd, 'folder'));
    const before = await tree(cwd);
    const missing = await bin(
      ['generate', 'x', '--out', 'a.ipynb', '--attach', 'nope.csv'],
      { cwd, env: binEnv(model.root) }
    );
    expect(missing.stderr.trim()).toBe(
      'notebook-agent: cannot attach nope.csv: no such file.'
    );
    const dangling = await bin(
      ['generate', 'x', '--out', 'a.ipynb', '--attach', 'dangling.csv'],
      { cwd, env: binEnv(model.root) }
    );
    expect(dangling.stderr).toContain(
      'cannot attach dangling.csv: no such file.'
    );
    const folder = await bin(
      ['generate', 'x', '--out', 'a.ipynb', '--attach', 'folder'],
      { cwd, env: binEnv(model.root) }
    );
    expect(folder.stderr).toContain('cannot attach folder: it is a folder');
    expect([missing.code, dangling.code, folder.code]).toEqual([1, 1, 1]);
    expect(await tree(cwd)).toEqual(before);
  });
});

describe('notebooks, folders and jupyter', () => {
  it('a missing notebook or folder says so, with and without --server', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'bin-missing-'));
    const env = binEnv(model.root, { JUPYTER_TOKEN: jupyter.token });
    const missing = await bin(['fix', 'missing.ipynb', '--cell', 'a'], {
      cwd,
      env
    });
    expect(missing.stderr.trim()).toBe(
      'notebook-agent: no such notebook: missing.ipynb'
    );
    const folder = await bin(['fix', 'no/such/dir/x.ipynb', '--cell', 'a'], {
      cwd,
      env
    });
    expect(folder.stderr.trim()).toBe(
      'notebook-agent: no such notebook: no/such/dir/x.ipynb'
    );
    const served = await bin(
      ['fix', 'missing.ipynb', '--cell', 'a', '--server', jupyter.baseUrl],
      { cwd, env }
    );
    expect(served.stderr).toContain(
      `notebook-agent: no such notebook: missing.ipynb (on the Jupyter server at ${jupyter.baseUrl}`
    );
    const out = await bin(
      ['generate', 'x', '--out', 'nodir/a.ipynb', '--server', jupyter.baseUrl],
      { cwd, env }
    );
    expect(out.stderr).toContain(
      `no such directory on the Jupyter server at ${jupyter.baseUrl}: nodir`
    );
    expect([missing.code, folder.code, served.code, out.code]).toEqual([
      1, 1, 1, 1
    ]);
    expect(await tree(cwd)).toEqual([]);
  });

  it('without jupyter on PATH: says what to install, and leaves nothing', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'bin-no-jupyter-'));
    const run = await bin(['generate', 'x', '--out', 'a.ipynb'], {
      cwd,
      env: binEnv(model.root, { PATH: dirname(process.execPath) })
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      '`jupyter` was not found on PATH: install Jupyter Server (`pip install jupyterlab` brings it)'
    );
    expect(run.stderr).toContain('--server URL');
    expect(run.stderr).not.toContain('ENOENT');
    expect(await tree(cwd)).toEqual([]);
  });
});

describe('unreachable servers', () => {
  it('a closed port names the URL (Jupyter server and model endpoint)', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'bin-closed-'));
    const closed = `http://127.0.0.1:${await freePort()}/`;
    const server = await bin(
      ['generate', 'x', '--out', 'a.ipynb', '--server', closed],
      { cwd, env: binEnv(model.root) }
    );
    expect(server.stderr).toContain(
      `cannot reach the Jupyter server at ${closed}: connection refused`
    );
    const endpoint = await bin(
      ['generate', 'x', '--out', 'a.ipynb', '--base-url', `${closed}v1`],
      { cwd, env: binEnv(model.root) }
    );
    expect(endpoint.stderr).toContain(
      `cannot reach the model endpoint at ${closed}v1: connection refused`
    );
    expect([server.code, endpoint.code]).toEqual([1, 1]);
    expect(await tree(cwd)).toEqual([]);
  });

  it('a file: URL is refused by name', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'bin-file-url-'));
    const server = await bin(
      ['fix', 'a.ipynb', '--cell', 'a', '--server', 'file:///tmp/'],
      { cwd, env: binEnv(model.root) }
    );
    expect(server.code).toBe(64);
    expect(server.stderr).toContain(
      '--server must be an http:// or https:// URL, not "file:///tmp/".'
    );
    const endpoint = await bin(['fix', 'a.ipynb', '--cell', 'a'], {
      cwd,
      env: binEnv(model.root, { OPENAI_BASE_URL: 'file:///v1' })
    });
    expect(endpoint.code).toBe(64);
    expect(endpoint.stderr).toContain(
      '$OPENAI_BASE_URL must be an http:// or https:// URL, not "file:///v1".'
    );
  });

  it('a server that never answers times out: --connect-timeout, and 10 s by default', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'bin-silent-'));
    await writeFile(join(cwd, 'a.ipynb'), '{}');
    const server = await bin(
      [
        'generate',
        'x',
        '--out',
        'a.ipynb',
        '--server',
        silentUrl,
        '--connect-timeout',
        '1'
      ],
      { cwd, env: binEnv(model.root) }
    );
    expect(server.stderr).toContain(
      `the Jupyter server at ${silentUrl} did not answer within 1 s`
    );
    expect(server.ms).toBeLessThan(10_000);
    const endpoint = await bin(['fix', 'a.ipynb', '--cell', 'a'], {
      cwd,
      env: binEnv(model.root, { OPENAI_BASE_URL: `${silentUrl}v1` })
    });
    // The default: 10 s, then a message (it used to hang 92 s and more).
    expect(endpoint.stderr).toContain(
      `the model endpoint at ${silentUrl}v1 did not answer within 10 s`
    );
    expect(endpoint.stderr).toContain('--connect-timeout');
    expect([server.code, endpoint.code]).toEqual([1, 1]);
    expect(
      parseCli(['fix', 'a.ipynb', '--cell', 'a'], { NOTEBOOK_AGENT_MODEL: 'm' })
    ).toMatchObject({ common: { connectTimeoutMs: 10_000 } });
  });
});
