/**
 * A private `jupyter lab` for the browser benchmarks, plus the scripted
 * model server: fixed loopback ports (8897 and 8797, clear of the ports
 * other engineers' servers use), temporary root, config, data, settings and
 * workspace directories, a random token. The extension is found through a
 * private JUPYTER_PATH that links this checkout's built labextension, and
 * its Python package through PYTHONPATH, so the global install is never
 * touched. The labextension can be unlinked and linked again between page
 * loads (JupyterLab lists federated extensions on every page load), and the
 * server extension turned off at start, for "without the extension" runs.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** The repository root. */
export const REPO = resolve(__dirname, '..', '..');
/** The extension's npm name (its labextension folder and URL segment). */
export const EXTENSION = 'jupyterlab-notebook-agent';
/** JupyterLab's "official Jupyter news?" prompt, kept out of timings. */
const ANNOUNCEMENTS = '@jupyterlab/apputils-extension:announcements';

/** A started child process whose whole process group we stop. */
class Child {
  constructor(
    readonly process: ChildProcess,
    readonly log: string[]
  ) {}

  static spawn(cmd: string, args: string[], env: NodeJS.ProcessEnv): Child {
    const child = spawn(cmd, args, {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env
    });
    const log: string[] = [];
    const keep = (chunk: Buffer) => {
      log.push(chunk.toString());
      if (log.length > 200) {
        log.shift();
      }
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    const onExit = () => Child.kill(child, 'SIGKILL');
    process.once('exit', onExit);
    child.once('exit', () => process.removeListener('exit', onExit));
    return new Child(child, log);
  }

  static kill(child: ChildProcess, signal: NodeJS.Signals): void {
    try {
      if (child.pid) {
        process.kill(-child.pid, signal);
      }
    } catch {
      // already gone
    }
  }

  async stop(): Promise<void> {
    const child = this.process;
    if (child.exitCode !== null || child.signalCode !== null) {
      return;
    }
    const exited = new Promise<void>(done => child.once('exit', done));
    Child.kill(child, 'SIGTERM');
    const timer = setTimeout(() => Child.kill(child, 'SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
    Child.kill(child, 'SIGKILL');
  }
}

async function waitFor(url: string, child: Child, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (child.process.exitCode !== null) {
      throw new Error(`${url}: server exited:\n${child.log.join('')}`);
    }
    try {
      if ((await fetch(url)).ok) {
        return;
      }
    } catch {
      // not listening yet
    }
    await new Promise(done => setTimeout(done, 100));
  }
  throw new Error(`${url} did not answer in ${ms} ms:\n${child.log.join('')}`);
}

/** The scripted OpenAI-compatible server (tests/scripted_model_server.py). */
export class ScriptedModelServer {
  private constructor(
    private readonly _child: Child,
    /** e.g. http://127.0.0.1:8797 (OpenAI routes under /v1). */
    readonly root: string
  ) {}

  /** Start it on `port` and wait until it answers. */
  static async start(port = 8797): Promise<ScriptedModelServer> {
    const python = process.env.PYTHON ?? 'python3';
    const file = join(REPO, 'tests', 'scripted_model_server.py');
    const child = Child.spawn(python, [file, '--port', String(port)], {
      ...process.env
    });
    const root = `http://127.0.0.1:${port}`;
    await waitFor(`${root}/v1/models`, child, 20000);
    return new ScriptedModelServer(child, root);
  }

  /** Replace the script (see the server's docstring for the turn format). */
  async script(turns: unknown[]): Promise<void> {
    const response = await fetch(`${this.root}/_script`, {
      method: 'POST',
      body: JSON.stringify({ turns })
    });
    if (!response.ok) {
      throw new Error(`could not load the script: ${response.status}`);
    }
  }

  /** Stop the server. */
  stop(): Promise<void> {
    return this._child.stop();
  }
}

/** This checkout's built labextension. */
export const BUILD = join(REPO, 'jupyterlab_notebook_agent', 'labextension');

/** Link a built labextension folder (or none) into a private data dir. */
async function linkExtension(temp: string, build: string | null): Promise<void> {
  const link = join(temp, 'data', 'labextensions', EXTENSION);
  await unlink(link).catch(() => undefined);
  if (build) {
    await symlink(build, link);
  }
}

/** A private JupyterLab server with this checkout's extension. */
export class LabServer {
  private constructor(
    private readonly _child: Child,
    private readonly _temp: string,
    /** Base URL, ending with a slash. */
    readonly baseUrl: string,
    /** The token (pass it as `?token=` on the first page load). */
    readonly token: string,
    /** The server's root directory. */
    readonly rootDir: string
  ) {}

  /** Start `jupyter lab` and wait until its REST API answers. */
  static async start(options: LabServer.IOptions = {}): Promise<LabServer> {
    const port = options.port ?? 8897;
    const temp = await mkdtemp(join(tmpdir(), 'notebook-agent-lab-'));
    const dirs = ['root', 'runtime', 'config/labconfig', 'data/labextensions'];
    for (const dir of dirs) {
      await mkdir(join(temp, dir), { recursive: true });
    }
    await writeFile(
      join(temp, 'config', 'labconfig', 'page_config.json'),
      JSON.stringify({
        disabledExtensions: {
          [ANNOUNCEMENTS]: true,
          ...Object.fromEntries(
            (options.disabledExtensions ?? []).map(name => [name, true])
          )
        },
        // The extension's in-page hooks (src/jupyter/testing/test-hooks.ts).
        ...(options.testHooks ? { notebookAgentTestHooks: 'true' } : {})
      })
    );
    if (options.serverExtension === false) {
      await writeFile(
        join(temp, 'config', 'jupyter_server_config.json'),
        JSON.stringify({
          ServerApp: { jpserver_extensions: { jupyterlab_notebook_agent: false } }
        })
      );
    }
    const token = randomBytes(24).toString('hex');
    if (options.labExtension ?? true) {
      await linkExtension(temp, BUILD);
    }
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...options.env,
      JUPYTER_CONFIG_DIR: join(temp, 'config'),
      JUPYTER_PATH: join(temp, 'data'),
      JUPYTER_RUNTIME_DIR: join(temp, 'runtime'),
      PYTHONPATH: [REPO, process.env.PYTHONPATH].filter(Boolean).join(':')
    };
    const args = [
      'lab',
      '--no-browser',
      '--allow-root',
      '--ip=127.0.0.1',
      `--port=${port}`,
      '--ServerApp.port_retries=0',
      `--ServerApp.root_dir=${join(temp, 'root')}`,
      `--IdentityProvider.token=${token}`,
      `--LabApp.user_settings_dir=${join(temp, 'settings')}`,
      `--LabApp.workspaces_dir=${join(temp, 'workspaces')}`,
      // The bench's chats and keys stay in its own folder, out of the
      // user's history (the default is the user's Jupyter data folder).
      `--NotebookAgent.chats_dir=${join(temp, 'chats')}`,
      `--NotebookAgent.key_store_path=${join(temp, 'keys', 'keys.json')}`,
      ...(options.extraArgs ?? [])
    ];
    const child = Child.spawn('jupyter', args, env);
    const started = new LabServer(
      child,
      temp,
      `http://127.0.0.1:${port}/`,
      token,
      join(temp, 'root')
    );
    try {
      await waitFor(`${started.baseUrl}api/status?token=${token}`, child, 60000);
    } catch (error) {
      await started.dispose();
      throw error;
    }
    return started;
  }

  /**
   * Install (link) or remove (unlink) the labextension for the next page
   * loads: JupyterLab then neither lists nor fetches it.
   */
  setExtensionEnabled(enabled: boolean): Promise<void> {
    return linkExtension(this._temp, enabled ? BUILD : null);
  }

  /**
   * Link another build of the labextension (a copy of an earlier commit's
   * jupyterlab_notebook_agent/labextension) for the next page loads, to
   * compare two builds on one server; `BUILD` is this checkout's.
   */
  linkBuild(build: string): Promise<void> {
    return linkExtension(this._temp, build);
  }

  /** Write a file into the server's root. */
  async writeFile(path: string, text: string): Promise<void> {
    await writeFile(join(this.rootDir, path), text);
  }

  /** Shut down every session (and its kernel) the server has. */
  async shutdownSessions(): Promise<void> {
    const auth = { headers: { Authorization: `token ${this.token}` } };
    const sessions = (await (
      await fetch(`${this.baseUrl}api/sessions`, auth)
    ).json()) as Array<{ id: string }>;
    for (const session of sessions) {
      await fetch(`${this.baseUrl}api/sessions/${session.id}`, {
        ...auth,
        method: 'DELETE'
      });
    }
  }

  /** Stop the server and its kernels and remove the temporary folders. */
  async dispose(): Promise<void> {
    await this._child?.stop();
    await rm(this._temp, { recursive: true, force: true });
  }
}

/** Options of LabServer. */
export namespace LabServer {
  /** How to start the server. */
  export interface IOptions {
    /** Default 8897. */
    port?: number;
    /** Extra environment (e.g. OPENAI_BASE_URL for the proxy). */
    env?: Record<string, string>;
    /** Extra command-line options. */
    extraArgs?: string[];
    /** Link the labextension at start (default true). */
    labExtension?: boolean;
    /** Load the Python server extension (default true). */
    serverExtension?: boolean;
    /**
     * Extensions to disable in the page config (their plugins do not start;
     * an extension installed in the environment is found even unlinked).
     */
    disabledExtensions?: string[];
    /** Turn on the extension's test hooks (window.notebookAgentTest; default false). */
    testHooks?: boolean;
  }
}
