/**
 * An AGENTS.md that is a link (inside the root): the listing gives the
 * link's own size ("7 B"); the path check gives the size of the file it
 * leads to. A link to a huge file is left out like a huge file, without
 * downloading it; a link to a small one shows its real size.
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
  const root = await mkdtemp(join(tmpdir(), 'rules-link-'));
  await writeFile(join(root, 'huge.md'), 'x'.repeat(300 * 1024));
  await writeFile(join(root, 'small.md'), 'Use polars, not pandas.\n');
  await mkdir(join(root, 'big'));
  await symlink(join(root, 'huge.md'), join(root, 'big', 'AGENTS.md'));
  await mkdir(join(root, 'ok'));
  await symlink(join(root, 'small.md'), join(root, 'ok', 'AGENTS.md'));
  server = await JupyterServerProcess.start({ rootDir: root });
  contents = new ContentsManager({ serverSettings: server.serverSettings });
}, 60000);

afterAll(async () => {
  contents?.dispose();
  await server?.dispose();
}, 30000);

const read = (notebookPath: string) =>
  readProjectRules(contents, server.serverSettings, notebookPath);

describe('an AGENTS.md that is a link', () => {
  it('to a huge file is left out, with the size of what it leads to, and not downloaded', async () => {
    const get = jest.spyOn(contents, 'get');
    const rules = await read('big/n.ipynb');
    // The path check said where the link leads and how big that is: only
    // folder listings were fetched, never the file.
    expect(get.mock.calls.map(([path]) => path)).not.toContain('big/AGENTS.md');
    get.mockRestore();
    expect(rules.files).toEqual([
      { path: 'big/AGENTS.md', bytes: 300 * 1024, shownBytes: 0 }
    ]);
    expect(rules.prompt).toContain('(300.0 KB) is left out');
    expect(rules.prompt).not.toContain('xxxx');
  });

  it('to a small file shows its content and its real size', async () => {
    const rules = await read('ok/n.ipynb');
    expect(rules.files).toEqual([
      { path: 'ok/AGENTS.md', bytes: 24, shownBytes: 24 }
    ]);
    expect(rules.prompt).toContain('Use polars, not pandas.');
  });
});
