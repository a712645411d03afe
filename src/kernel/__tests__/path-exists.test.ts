/**
 * pathExists and its kin against a real Jupyter server: files, notebooks and
 * folders are found, free names are not, no check is a 404 (the browser logs
 * every 404 as a console error: Generate's check of its file names did, each
 * run), and a folder is listed once however many names are checked in it.
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ContentsManager, type ServerConnection } from '@jupyterlab/services';
import { JupyterServerProcess } from '../../headless/servers/jupyter-server';
import {
  existingPaths,
  firstFreeName,
  namesIn,
  pathExists
} from '../path-exists';

jest.setTimeout(30000);

let server: JupyterServerProcess;
let contents: ContentsManager;
const statuses: number[] = [];

beforeAll(async () => {
  const root = await mkdtemp(join(tmpdir(), 'exists-root-'));
  await mkdir(join(root, 'proj', 'sub'), { recursive: true });
  for (const name of ['top.csv', 'top-1.csv', 'top-2.csv']) {
    await writeFile(join(root, name), 'a,b\n1,2\n');
  }
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

describe('names chosen and checked from one listing', () => {
  it('lists each folder once for any number of paths, and keeps their order', async () => {
    statuses.length = 0;
    const paths = ['proj/free.csv', 'top.csv', 'proj/n.ipynb', 'top-2.csv'];
    paths.push('proj/sub', 'free.ipynb', 'nowhere/x.csv');
    expect(await existingPaths(contents, paths)).toEqual([
      'top.csv',
      'proj/n.ipynb',
      'top-2.csv',
      'proj/sub'
    ]);
    // proj, the root and nowhere: three listings, one of them failing.
    expect(statuses.length).toBe(3);
  });

  it('chooses the first free numbered name from one listing', async () => {
    statuses.length = 0;
    const taken = await namesIn(contents, '');
    expect(firstFreeName(taken, 'top.csv')).toBe('top-3.csv');
    expect(firstFreeName(taken, 'free.csv')).toBe('free.csv');
    expect(firstFreeName(taken, 'proj')).toBe('proj-1');
    expect(statuses).toEqual([200]);
    expect(await namesIn(contents, 'nowhere')).toEqual(new Set());
  });
});
