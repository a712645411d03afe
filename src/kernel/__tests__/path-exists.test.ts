/**
 * pathExists against a real Jupyter server: files, notebooks and folders are
 * found, free names are not, and no check is a 404 (the browser logs every
 * 404 as a console error: Generate's check of its file names did, each run).
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ContentsManager, type ServerConnection } from '@jupyterlab/services';
import { JupyterServerProcess } from '../../headless/servers/jupyter-server';
import { pathExists } from '../path-exists';

jest.setTimeout(30000);

let server: JupyterServerProcess;
let contents: ContentsManager;
const statuses: number[] = [];

beforeAll(async () => {
  const root = await mkdtemp(join(tmpdir(), 'exists-root-'));
  await mkdir(join(root, 'proj', 'sub'), { recursive: true });
  await writeFile(join(root, 'top.csv'), 'a,b\n1,2\n');
  await writeFile(join(root, 'proj', 'n.ipynb'), '{}');
  server = await JupyterServerProcess.start({ rootDir: root });
  const settings = server.serverSettings;
  const serverSettings: ServerConnection.ISettings = {
    ...settings,
    fetch: async (input, init) => {
      const response = await settings.fetch(input, init);
      statuses.push(response.status);
      return response;
    }
  };
  contents = new ContentsManager({ serverSettings });
}, 60000);

afterAll(async () => {
  contents?.dispose();
  await server?.dispose();
}, 30000);

describe('pathExists on a Jupyter server', () => {
  it('finds files, notebooks and folders, at the root and below', async () => {
    for (const path of ['top.csv', 'proj', 'proj/n.ipynb', 'proj/sub']) {
      expect([path, await pathExists(contents, path)]).toEqual([path, true]);
    }
  });

  it('does not find a free name, nor a name in a folder that is not there', async () => {
    for (const path of ['free.ipynb', 'proj/free.csv', 'nowhere/n.ipynb']) {
      expect([path, await pathExists(contents, path)]).toEqual([path, false]);
    }
    // A name is not found as part of another one.
    expect(await pathExists(contents, 'top')).toBe(false);
  });

  it('asks nothing that answers 404 for a free name in a folder that exists', async () => {
    statuses.length = 0;
    expect(await pathExists(contents, 'proj/free.ipynb')).toBe(false);
    expect(await pathExists(contents, 'free.ipynb')).toBe(false);
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.filter(status => status === 404)).toEqual([]);
  });
});
