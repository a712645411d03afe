/**
 * Project rules read through a real Jupyter server's contents API (the
 * reader of the sidebar and the command line): files found up to the root,
 * nothing below a hidden folder, a link leading outside the root not read,
 * a huge file not downloaded.
 */
import { mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ContentsManager } from '@jupyterlab/services';
import { JupyterServerProcess } from '../../headless/servers/jupyter-server';
import { readProjectRules } from '../project-rules';

jest.setTimeout(30000);

let server: JupyterServerProcess;
let contents: ContentsManager;

beforeAll(async () => {
  const root = await mkdtemp(join(tmpdir(), 'rules-root-'));
  const outside = await mkdtemp(join(tmpdir(), 'rules-outside-'));
  await writeFile(join(root, 'AGENTS.md'), 'Root rule: use pandas.\n');
  await mkdir(join(root, 'proj', 'sub'), { recursive: true });
  await writeFile(
    join(root, 'proj', 'AGENTS.md'),
    'Project rule: plot with seaborn.\n'
  );
  await mkdir(join(root, 'proj', '.hidden'));
  await writeFile(join(root, 'proj', '.hidden', 'AGENTS.md'), 'Hidden rule.\n');
  await writeFile(join(outside, 'secret.md'), 'SECRET outside the root\n');
  await mkdir(join(root, 'linked'));
  await symlink(join(outside, 'secret.md'), join(root, 'linked', 'AGENTS.md'));
  await mkdir(join(root, 'big'));
  await writeFile(join(root, 'big', 'AGENTS.md'), 'x'.repeat(300 * 1024));
  await mkdir(join(root, 'dir', 'AGENTS.md'), { recursive: true });
  server = await JupyterServerProcess.start({ rootDir: root });
  contents = new ContentsManager({ serverSettings: server.serverSettings });
}, 60000);

afterAll(async () => {
  contents?.dispose();
  await server?.dispose();
}, 30000);

const read = (notebookPath: string) =>
  readProjectRules(contents, server.serverSettings, notebookPath);

describe('project rules on a Jupyter server', () => {
  it('finds AGENTS.md from the notebook’s folder up to the root, nearest last', async () => {
    const rules = await read('proj/sub/n.ipynb');
    expect(rules.files).toEqual([
      { path: 'AGENTS.md', bytes: 23, shownBytes: 23 },
      { path: 'proj/AGENTS.md', bytes: 33, shownBytes: 33 }
    ]);
    expect(rules.prompt.indexOf('Root rule')).toBeLessThan(
      rules.prompt.indexOf('Project rule: plot')
    );
  });

  it('reads nothing in a hidden folder', async () => {
    const rules = await read('proj/.hidden/n.ipynb');
    expect(rules.files.map(f => f.path)).toEqual([
      'AGENTS.md',
      'proj/AGENTS.md'
    ]);
    expect(rules.prompt).not.toContain('Hidden rule');
  });

  it('skips an AGENTS.md that is a link to a file outside the root', async () => {
    const rules = await read('linked/n.ipynb');
    expect(rules.files.map(f => f.path)).toEqual(['AGENTS.md']);
    expect(rules.prompt).not.toContain('SECRET');
  });

  it('lists a huge file as truncated without downloading it, and ignores a folder named AGENTS.md', async () => {
    const big = await read('big/n.ipynb');
    expect(big.files[1]).toEqual({
      path: 'big/AGENTS.md',
      bytes: 300 * 1024,
      shownBytes: 0
    });
    expect(big.prompt).toContain('is left out');
    const dir = await read('dir/n.ipynb');
    expect(dir.files.map(f => f.path)).toEqual(['AGENTS.md']);
  });
});
