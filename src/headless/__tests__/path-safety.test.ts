/**
 * The headless port's read_file/list_files/write_file against a real Jupyter server
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
import { executeToolCall } from '../../agent/loop/tool-step';
import { NotebookPortError } from '../../agent/ports';
import { agentTools } from '../../agent/tools/all-tools';
import { ToolRegistry } from '../../agent/tools/registry';
import { RunState } from '../../agent/tools/run-state';
import { JupyterServerProcess } from '../servers/jupyter-server';
import { ServerNotebookPort } from '../server-port/server-port';
import { SERVER_START_MS } from './server-start';

jest.setTimeout(30000);

interface IPathTable {
  files: Record<string, string>;
  outside_files: Record<string, string>;
  links: Record<string, string>;
  reads: { path: string; verdict: 'allowed' | 'hidden' | 'outside' }[];
  writes: {
    path: string;
    verdict: 'allowed' | 'hidden' | 'outside';
    real?: string;
    runs_later?: boolean;
  }[];
  listings: { dir: string; shown: string[]; hidden: string[] }[];
}

let table: IPathTable;
let base: string;
let server: JupyterServerProcess;
let port: ServerNotebookPort;
let root: string;
let outside: string;

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
  root = join(base, 'home');
  outside = join(base, 'outside');
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
}, SERVER_START_MS);

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

/** Every regular file under `dir` (links not followed) → its text. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const { readdir, lstat } = await import('node:fs/promises');
  const out: Record<string, string> = {};
  for (const name of await readdir(dir)) {
    const full = join(dir, name);
    const info = await lstat(full);
    if (info.isDirectory()) {
      for (const [k, v] of Object.entries(await snapshot(full))) {
        out[`${name}/${k}`] = v;
      }
    } else if (info.isFile()) {
      out[name] = await readFile(full, 'utf8');
    }
  }
  return out;
}

describe('write_file through the headless port', () => {
  it('writes allowed paths and refuses hidden and outside ones, leaving every file as it was', async () => {
    const hiddenBefore = await snapshot(root);
    const outsideBefore = await snapshot(outside);
    const allowed: string[] = [];
    // Where each allowed write lands (through a folder link: its real place).
    const landed = new Map<string, string>();
    for (const { path, verdict, real, runs_later } of table.writes) {
      const write = port.writeFile(path, `written by the agent: ${path}\n`);
      if (runs_later) {
        // A harmless name that a link leads into site-packages: refused, with the real place.
        await expect(write).rejects.toThrow(
          `Refused: ${path} leads through a link to ${real}, and it is inside an installed Python environment`
        );
        continue;
      }
      if (verdict === 'allowed') {
        await expect(write).resolves.toBeUndefined();
        allowed.push(path);
        landed.set(path, real ?? path);
        continue;
      }
      await expect(write).rejects.toThrow(
        verdict === 'hidden'
          ? /hidden or is a link to a hidden file or folder/
          : /outside the Jupyter server's root directory/
      );
    }
    const after = await snapshot(root);
    for (const path of allowed) {
      expect(after[landed.get(path)!]).toBe(`written by the agent: ${path}\n`);
      expect(await port.readFile(path)).toBe(after[landed.get(path)!]);
    }
    // Nothing else changed: not .env behind notes.txt, not .ssh, not .config.
    const others = (files: Record<string, string>) =>
      Object.fromEntries(
        Object.entries(files).filter(
          ([path]) => ![...landed.values()].includes(path)
        )
      );
    expect(others(after)).toEqual(others(hiddenBefore));
    expect(hiddenBefore['.env']).toMatch(/sk-planted/);
    expect(await snapshot(outside)).toEqual(outsideBefore);
    // Missing folders are created for an allowed path only.
    const { existsSync } = await import('node:fs');
    expect(existsSync(join(root, 'fresh', 'sub'))).toBe(true);
    expect(existsSync(join(root, '.config', 'sub'))).toBe(false);
    expect(existsSync(join(outside, 'newdir'))).toBe(false);
  });

  it('the write_file tool refuses the same paths (links through the server check), a replacement is asked', async () => {
    const tools = new ToolRegistry(agentTools());
    const before = await snapshot(root);
    const asked: string[] = [];
    const results: string[] = [];
    for (const { path, verdict, runs_later } of table.writes) {
      const result = await executeToolCall(
        {
          id: path,
          name: 'write_file',
          arguments: JSON.stringify({ path, content: 'second write\n' })
        },
        {
          config: { tools, approvalMode: 'run-everything' },
          turn: { notebook: port, signal: new AbortController().signal },
          state: new RunState()
        },
        async request => {
          asked.push(`${request.kind} ${request.title}`);
          return { approved: true };
        }
      );
      results.push(result.output);
      expect(result.ok).toBe(verdict === 'allowed' && !runs_later);
      if (verdict !== 'allowed' || runs_later) {
        expect(result.output).toMatch(/Refused/);
      }
    }
    // Both allowed files exist by now (the test before wrote them): each
    // replacement was asked, with its diff.
    expect(asked).toEqual([
      'replace Replace work/new-report.txt',
      'replace Replace fresh/sub/notes.txt',
      'replace Replace work/draft.txt',
      'replace Replace data-link/new.csv'
    ]);
    const after = await snapshot(root);
    // Through the link into site-packages: refused by the port, nothing written there.
    expect(Object.keys(after).filter(p => p.includes('site-packages'))).toEqual(
      ['venv/lib/python3.11/site-packages/installed.py']
    );
    expect(after['work/draft.txt']).toBe('second write\n');
    expect(after['.env']).toBe(before['.env']);
    expect(after['.ssh/id_rsa']).toBe(before['.ssh/id_rsa']);
    expect(JSON.stringify(results)).not.toMatch(/sk-planted|PRIVATE KEY/);
  });
});
