/**
 * The headless port's read_file/list_files against a real Jupyter server
 * whose root is a fake $HOME with planted links (`notes.txt -> .env`,
 * `data/readme.txt -> ../.ssh/id_rsa`, a link out of the root): the table
 * in tests/path_cases.json, which tests/test_path_check.py also runs
 * against the path-check route.
 */
import {
  mkdir,
  mkdtemp,
  readFile,
  rm,
  symlink,
  writeFile
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { NotebookPortError } from '../../agent/ports';
import { JupyterServerProcess } from '../jupyter-server';
import { ServerNotebookPort } from '../server-port';

jest.setTimeout(30000);

interface IPathTable {
  files: Record<string, string>;
  outside_files: Record<string, string>;
  links: Record<string, string>;
  reads: { path: string; verdict: 'allowed' | 'hidden' | 'outside' }[];
  listings: { dir: string; shown: string[]; hidden: string[] }[];
}

let table: IPathTable;
let base: string;
let server: JupyterServerProcess;
let port: ServerNotebookPort;

async function writeTree(folder: string, files: Record<string, string>) {
  for (const [name, text] of Object.entries(files)) {
    await mkdir(dirname(join(folder, name)), { recursive: true });
    await writeFile(join(folder, name), text);
  }
}

beforeAll(async () => {
  jest.spyOn(console, 'debug').mockImplementation(() => undefined);
  jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  const file = join(__dirname, '..', '..', '..', 'tests', 'path_cases.json');
  table = JSON.parse(await readFile(file, 'utf8')) as IPathTable;
  base = await mkdtemp(join(tmpdir(), 'notebook-agent-paths-'));
  const root = join(base, 'home');
  const outside = join(base, 'outside');
  await writeTree(root, table.files);
  await writeTree(outside, table.outside_files);
  for (const [name, target] of Object.entries(table.links)) {
    await mkdir(dirname(join(root, name)), { recursive: true });
    await symlink(target.replace('{outside}', outside), join(root, name));
  }
  server = await JupyterServerProcess.start({ rootDir: root });
  port = await ServerNotebookPort.open({
    serverSettings: server.serverSettings,
    path: 'agent.ipynb',
    createIfMissing: true
  });
}, 60000);

afterAll(async () => {
  await port?.close({ shutdownKernel: true });
  await server?.dispose();
  await rm(base, { recursive: true, force: true });
}, 30000);

describe('read_file and list_files through the headless port', () => {
  it('reads allowed paths and refuses hidden and outside ones, with distinct messages', async () => {
    for (const { path, verdict } of table.reads) {
      const read = port.readFile(path);
      if (verdict === 'allowed') {
        await expect(read).resolves.toEqual(expect.any(String));
        continue;
      }
      await expect(read).rejects.toBeInstanceOf(NotebookPortError);
      await expect(port.readFile(path)).rejects.toThrow(
        verdict === 'hidden'
          ? /hidden or is a link to a hidden file or folder/
          : /outside the Jupyter server's root directory/
      );
    }
    // What a refusal keeps away: the planted secrets never come back.
    const texts = await Promise.all(
      table.reads
        .filter(r => r.verdict === 'allowed')
        .map(r => port.readFile(r.path))
    );
    expect(texts.join('')).not.toMatch(
      /sk-planted|PRIVATE KEY|outside the root/
    );
  });

  it('lists no entry that leads to a hidden path', async () => {
    for (const { dir, shown, hidden } of table.listings) {
      const paths = (await port.listFiles(dir)).map(entry => entry.path);
      expect(paths).toEqual(expect.arrayContaining(shown));
      for (const path of hidden) {
        expect(paths).not.toContain(path);
      }
    }
  });
});
