/**
 * Where an evaluation's notebooks and kernels live: a private Jupyter
 * server started for the run (the default: its root is a temporary folder
 * on this machine), or a running server given with `--server URL`, local or
 * remote, reached only through its REST API (contents and kernels), as
 * `notebook-agent --server` reaches one. On a given server every task works
 * in `notebook-agent-eval/<run>/<task>/`, a folder of its own, so nothing of
 * the user's is touched.
 */
import { copyFile, mkdir, readFile, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { ContentsManager, type ServerConnection } from '@jupyterlab/services';
import { uploadToServer } from '../../src/headless/cli/cli-attach';
import { CliError, connectJupyter } from '../../src/headless/cli/cli-connect';
import { JupyterServerProcess } from '../../src/headless/servers/jupyter-server';

/** The server the tasks of one run use. */
export interface IEvalServer {
  settings: ServerConnection.ISettings;
  /** Where the server is, for the report. */
  url: string;
  /** Makes the task's folder with `files` (local paths) in it; returns the folder, relative to the server root. */
  prepareTask(taskId: string, files: string[]): Promise<string>;
  /** The notebook at `path` (relative to the server root) as nbformat JSON text. */
  readNotebook(path: string): Promise<string>;
  dispose(): Promise<void>;
}

/** How to reach a given server. */
export interface IGivenServer {
  url: string;
  /** Its token ($JUPYTER_TOKEN; never on the command line). */
  token: string;
  /** How long it may take to answer the first request, ms (default 10 s). */
  connectTimeoutMs?: number;
}

/** The given server once it answered with its token accepted, else a private one. */
export async function openEvalServer(
  given: IGivenServer | undefined,
  runId: string
): Promise<IEvalServer> {
  return given ? openGivenServer(given, runId) : openPrivateServer();
}

async function openPrivateServer(): Promise<IEvalServer> {
  const server = await JupyterServerProcess.start();
  return {
    settings: server.serverSettings,
    url: server.baseUrl,
    prepareTask: async (taskId, files) => {
      await mkdir(join(server.rootDir, taskId), { recursive: true });
      for (const file of files) {
        await copyFile(file, join(server.rootDir, taskId, basename(file)));
      }
      return taskId;
    },
    readNotebook: path => readFile(join(server.rootDir, path), 'utf8'),
    dispose: () => server.dispose()
  };
}

async function openGivenServer(
  given: IGivenServer,
  runId: string
): Promise<IEvalServer> {
  let connection;
  try {
    connection = await connectJupyter(
      {
        baseUrl: '',
        model: '',
        apiKey: '',
        server: given.url,
        token: given.token,
        connectTimeoutMs: given.connectTimeoutMs ?? 10_000,
        maxSteps: 0,
        timeoutSeconds: 0,
        // Only the connection is used: no run, so no project rules to read.
        rules: false
      },
      ''
    );
  } catch (error) {
    // The same words as the command line's, without its exit convention.
    throw error instanceof CliError
      ? new Error(error.message.replace('pass --token or set', 'set'))
      : error;
  }
  const contents = new ContentsManager({ serverSettings: connection.settings });
  const runFolder = `notebook-agent-eval/${runId}`;
  await makeFolders(contents, runFolder);
  return {
    settings: connection.settings,
    url: connection.url,
    prepareTask: async (taskId, files) => {
      const folder = `${runFolder}/${taskId}`;
      await makeFolders(contents, folder);
      for (const file of files) {
        const info = await stat(file);
        await uploadToServer(
          contents,
          { path: file, size: info.size },
          `${folder}/${basename(file)}`
        );
      }
      return folder;
    },
    readNotebook: async path => {
      const model = await contents.get(path, {
        type: 'notebook',
        content: true
      });
      return `${JSON.stringify(model.content, null, 1)}\n`;
    },
    dispose: () => connection.dispose()
  };
}

/** `a/b/c` and its parents, made where missing (the contents API makes one level at a time). */
async function makeFolders(
  contents: ContentsManager,
  folder: string
): Promise<void> {
  let path = '';
  for (const part of folder.split('/')) {
    path = path ? `${path}/${part}` : part;
    const exists = await contents
      .get(path, { content: false })
      .then(() => true)
      .catch(() => false);
    if (!exists) {
      await contents.save(path, { type: 'directory' });
    }
  }
}
