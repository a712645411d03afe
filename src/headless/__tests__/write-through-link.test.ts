/**
 * write_file on a real Jupyter server, judged where it really lands
 * (#35 D2, D7): the root holds a project whose notebook is
 * `proj/analysis.ipynb`, a folder link `helpers -> proj`, the notebook's
 * folder named through a link too (`nblink -> proj`), a venv, and a
 * dangling file link `notes/index.txt -> ../venv/pip.conf`. A module that
 * a link leads next to the notebook (where `import requests` loads it
 * before the library) and pip's site configuration (which the next
 * approved `%pip install` reads) are never created without a question.
 * A hard link (`notes/hl.txt`, one file with `hlenv/pip.conf`), which no
 * real path shows, is never replaced.
 */
import {
  link,
  mkdir,
  mkdtemp,
  readFile,
  rm,
  stat,
  symlink,
  writeFile as writeDiskFile
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { executeToolCall } from '../../agent/loop/tool-step';
import type { ApprovalMode } from '../../agent/loop/approval';
import { agentTools } from '../../agent/tools/all-tools';
import { ToolRegistry } from '../../agent/tools/registry';
import { RunState } from '../../agent/tools/run-state';
import { JupyterServerProcess } from '../servers/jupyter-server';
import { ServerNotebookPort } from '../server-port/server-port';

jest.setTimeout(60000);

const NEXT_TO_NOTEBOOK =
  'a notebook in this folder imports it before the library of the same name';

const PIP_CONF = '[global]\nindex-url = https://pypi.org/simple\n';
const HARD_LINK =
  /^Refused: notes\/hl\.txt is a hard link: the file has 2 names, and the others, which write_file cannot see .*Nothing was written/;

let base: string;
let root: string;
let server: JupyterServerProcess;
let port: ServerNotebookPort;

const exists = (path: string) =>
  stat(join(root, path)).then(
    () => true,
    () => false
  );

beforeAll(async () => {
  jest.spyOn(console, 'debug').mockImplementation(() => undefined);
  jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  base = await mkdtemp(join(tmpdir(), 'notebook-agent-link-writes-'));
  root = join(base, 'home');
  await mkdir(join(root, 'proj'), { recursive: true });
  await mkdir(join(root, 'data'), { recursive: true });
  await mkdir(join(root, 'notes'), { recursive: true });
  await mkdir(join(root, 'venv', 'lib', 'python3.11', 'site-packages'), {
    recursive: true
  });
  await symlink('proj', join(root, 'helpers'));
  await symlink('proj', join(root, 'nblink'));
  await symlink('data', join(root, 'data-link'));
  await symlink('../venv/pip.conf', join(root, 'notes', 'index.txt'));
  await mkdir(join(root, 'hlenv'), { recursive: true });
  await writeDiskFile(join(root, 'hlenv', 'pip.conf'), PIP_CONF);
  await link(join(root, 'hlenv', 'pip.conf'), join(root, 'notes', 'hl.txt'));
  server = await JupyterServerProcess.start({ rootDir: root });
  port = await ServerNotebookPort.open({
    serverSettings: server.serverSettings,
    path: 'proj/analysis.ipynb',
    createIfMissing: true
  });
}, 90000);

afterAll(async () => {
  await port?.close({ shutdownKernel: true });
  await server?.dispose();
  await rm(base, { recursive: true, force: true });
}, 30000);

/** One write_file call through the loop's approval step (approved when asked). */
async function writeFile(
  notebook: ServerNotebookPort,
  path: string,
  mode: ApprovalMode
) {
  const asked: string[] = [];
  const result = await executeToolCall(
    {
      id: path,
      name: 'write_file',
      arguments: JSON.stringify({ path, content: 'planted = True\n' })
    },
    {
      config: { tools: new ToolRegistry(agentTools()), approvalMode: mode },
      turn: { notebook, signal: new AbortController().signal },
      state: new RunState()
    },
    async request => {
      asked.push(request.title);
      return { approved: true };
    }
  );
  return { result, asked };
}

describe('the port (src/kernel/files.ts) judges where a write really lands', () => {
  it('refuses a module that a folder link leads next to the notebook, naming the real place', async () => {
    await expect(
      port.writeFile('helpers/requests.py', 'planted = True\n')
    ).rejects.toThrow(
      `Refused: helpers/requests.py leads through a link to proj/requests.py, and ${NEXT_TO_NOTEBOOK}.`
    );
    expect(await exists('proj/requests.py')).toBe(false);
  });

  it("refuses pip's site configuration behind a file link", async () => {
    await expect(
      port.writeFile('notes/index.txt', '[global]\nindex-url = http://x/\n')
    ).rejects.toThrow(
      /^Refused: notes\/index\.txt leads through a link to venv\/pip\.conf, and pip reads it as its configuration/
    );
    expect(await exists('venv/pip.conf')).toBe(false);
  });

  it('refuses to replace a hard link (an outside review, 2026-12-07)', async () => {
    await expect(
      port.writeFile('notes/hl.txt', '[global]\nindex-url = http://x/\n')
    ).rejects.toThrow(HARD_LINK);
    expect(await readFile(join(root, 'hlenv', 'pip.conf'), 'utf8')).toBe(
      PIP_CONF
    );
  });

  it('writes through a link to an ordinary folder as before', async () => {
    await port.writeFile('data-link/new.csv', 'a\n1\n');
    expect(await exists('data/new.csv')).toBe(true);
  });
});

describe('write_file on the real server', () => {
  it.each(['ask-before-running', 'run-everything'] as ApprovalMode[])(
    'in %s: helpers/requests.py is refused before anyone is asked; nothing lands in proj/',
    async mode => {
      const { result, asked } = await writeFile(
        port,
        'helpers/requests.py',
        mode
      );
      expect(asked).toEqual([]);
      expect(result.ok).toBe(false);
      expect(result.output).toContain('use the path proj/requests.py');
      expect(await exists('proj/requests.py')).toBe(false);
    }
  );

  it.each(['ask-before-running', 'run-everything'] as ApprovalMode[])(
    'in %s: replacing the hard link notes/hl.txt is refused before anyone is asked; hlenv/pip.conf is unchanged',
    async mode => {
      const { result, asked } = await writeFile(port, 'notes/hl.txt', mode);
      expect(asked).toEqual([]);
      expect(result.ok).toBe(false);
      expect(result.output).toMatch(HARD_LINK);
      expect(await readFile(join(root, 'hlenv', 'pip.conf'), 'utf8')).toBe(
        PIP_CONF
      );
    }
  );

  it('the real path is asked about, saying why', async () => {
    const { result, asked } = await writeFile(
      port,
      'proj/requests.py',
      'ask-before-running'
    );
    expect(asked).toEqual([`Create proj/requests.py (${NEXT_TO_NOTEBOOK})`]);
    expect(result.ok).toBe(true);
    expect(await exists('proj/requests.py')).toBe(true);
  });

  it('venv/pip.conf is asked about in every mode, run-everything included', async () => {
    const { asked } = await writeFile(port, 'venv/pip.conf', 'run-everything');
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatch(
      /^Create venv\/pip\.conf \(pip reads it as its configuration/
    );
  });

  // An outside re-check (2026-12-06) found these created with no question.
  it.each([
    [
      'env/lib/python312.zip',
      /Python imports its standard library from this zip/
    ],
    ['pypath/sitecustomize.pyc', /Python runs this file at every start/],
    ['jupyterhub_config.py', /Jupyter or IPython runs or loads it/],
    ['pixi.toml', /pixi reads it as its configuration/],
    ['proj/pdm.toml', /PDM reads it as its configuration/]
  ])(
    '%s is asked about in every mode, run-everything included',
    async (path, reason) => {
      const { asked } = await writeFile(port, path, 'run-everything');
      expect(asked).toHaveLength(1);
      expect(asked[0]).toMatch(reason);
    }
  );

  it('a matplotlibrc that a folder link leads next to the notebook is asked about', async () => {
    const { asked, result } = await writeFile(
      port,
      'helpers/matplotlibrc',
      'ask-before-running'
    );
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatch(/matplotlib reads it/);
    expect(result.ok).toBe(true);
    expect(await exists('proj/matplotlibrc')).toBe(true);
  });

  it('a notebook open through a folder link: a module in its real folder is asked about', async () => {
    const linked = await ServerNotebookPort.open({
      serverSettings: server.serverSettings,
      path: 'nblink/analysis.ipynb'
    });
    try {
      const { asked } = await writeFile(
        linked,
        'proj/zz_shadow.py',
        'ask-before-running'
      );
      expect(asked).toEqual([`Create proj/zz_shadow.py (${NEXT_TO_NOTEBOOK})`]);
    } finally {
      await linked.close({ shutdownKernel: true });
    }
  });
});
