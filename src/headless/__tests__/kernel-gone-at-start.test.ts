/**
 * A kernel gone while starting (shut down from another tab, culled): opening
 * its notebook fails at once with a message that says so, not that it "did
 * not answer" within a timeout nobody waited (CI's 20-run load test once read
 * so). A real Jupyter server; the kernel is a kernelspec that never answers,
 * shut down through the REST API while the port waits for it.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JupyterServerProcess } from '../servers/jupyter-server';
import { ServerNotebookPort } from '../server-port/server-port';
import { SERVER_START_MS } from './server-start';

let server: JupyterServerProcess;
let dataDir: string;

beforeAll(async () => {
  jest.spyOn(console, 'debug').mockImplementation(() => undefined);
  jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  jest.spyOn(console, 'error').mockImplementation(() => undefined);
  dataDir = await mkdtemp(join(tmpdir(), 'kernel-dies-'));
  const spec = join(dataDir, 'kernels', 'silent');
  await mkdir(spec, { recursive: true });
  await writeFile(
    join(spec, 'kernel.json'),
    JSON.stringify({
      argv: [
        'python',
        '-c',
        'import time; time.sleep(600)',
        '{connection_file}'
      ],
      display_name: 'Never answers',
      language: 'python'
    })
  );
  server = await JupyterServerProcess.start({
    env: { JUPYTER_PATH: dataDir }
  });
}, SERVER_START_MS);

afterAll(async () => {
  await server?.dispose();
  await rm(dataDir, { recursive: true, force: true });
}, 30000);

async function kernelIds(): Promise<string[]> {
  const response = await fetch(`${server.baseUrl}api/kernels`, {
    headers: { Authorization: `token ${server.token}` }
  });
  return ((await response.json()) as Array<{ id: string }>).map(k => k.id);
}

it('says the kernel stopped while starting, well before its start timeout', async () => {
  const timeoutMs = 240000;
  const started = Date.now();
  const opening = ServerNotebookPort.open({
    serverSettings: server.serverSettings,
    path: 'gone.ipynb',
    createIfMissing: true,
    kernelName: 'silent',
    kernelStartTimeoutMs: timeoutMs
  }).then(
    () => null,
    (e: unknown) => e
  );
  let ids: string[] = [];
  while (!ids.length && Date.now() - started < 60000) {
    await new Promise(resolve => setTimeout(resolve, 500));
    ids = await kernelIds();
  }
  expect(ids).toHaveLength(1);
  await new Promise(resolve => setTimeout(resolve, 2000));
  await fetch(`${server.baseUrl}api/kernels/${ids[0]}`, {
    method: 'DELETE',
    headers: { Authorization: `token ${server.token}` }
  });
  const error = String(await opening);
  expect(error).toMatch(new RegExp(`kernel ${ids[0]} stopped while starting`));
  expect(error).not.toContain('did not answer');
  expect(Date.now() - started).toBeLessThan(timeoutMs / 2);
}, 300000);
