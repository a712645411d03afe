/**
 * A private `jupyter server` for the integration tests, the benchmarks and
 * the CLI: loopback only, a free port, a temporary root directory and a
 * random token, so it never touches the user's servers or files. The token
 * goes to the server in its environment (JUPYTER_TOKEN), not on its command
 * line, which every user of the machine can read (`ps`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { ServerConnection } from '@jupyterlab/services';
import WebSocket from 'ws';
import { keptPort } from './free-port';
import { kernelTransportArgs } from './kernel-transport';
import { retryingFetch, SignalKeepingRequest } from './retrying-fetch';

/**
 * How long a private server gets to answer: 2-3 s when the machine is
 * quiet, but over 30 s was seen on two cores with a browser suite and pip
 * installs beside it (CI); a wrong setup fails at once (exit, spawn error).
 */
const START_TIMEOUT_MS = 90000;

/** A running private Jupyter server. */
export class JupyterServerProcess {
  /** Base URL, ending with a slash. */
  readonly baseUrl: string;
  /** The token clients must send. */
  readonly token: string;
  /** The server's root directory (a fresh temporary one unless given). */
  readonly rootDir: string;

  private constructor(
    private _child: ChildProcess,
    private readonly _tempDir: string,
    port: number,
    token: string,
    private readonly _log: string[],
    rootDir: string,
    /** Starts the server process again with the same arguments. */
    private readonly _spawn: () => ChildProcess
  ) {
    this.baseUrl = `http://127.0.0.1:${port}/`;
    this.token = token;
    this.rootDir = rootDir;
  }

  /**
   * Start a server and wait until its REST API answers.
   * Rejects (and cleans up) when it does not start within the timeout.
   */
  static async start(
    options: JupyterServerProcess.IOptions = {}
  ): Promise<JupyterServerProcess> {
    if (options.rootDir) {
      // Spawning in a missing directory fails as "spawn jupyter ENOENT".
      const found = await stat(options.rootDir).catch(() => null);
      if (!found?.isDirectory()) {
        throw new Error(`no such directory: ${options.rootDir}`);
      }
    }
    const tempDir = await mkdtemp(join(tmpdir(), 'notebook-agent-server-'));
    const rootDir = options.rootDir ?? join(tempDir, 'root');
    const runtimeDir = join(tempDir, 'runtime');
    if (!options.rootDir) {
      await mkdir(rootDir);
    }
    await mkdir(runtimeDir);
    const configDir = join(tempDir, 'config');
    const secrets = (options.secrets ?? []).filter(Boolean);
    if (secrets.length) {
      await mkdir(configDir, { mode: 0o700 });
      await writeFile(
        join(configDir, 'jupyter_server_config.json'),
        JSON.stringify({ NotebookAgent: { secrets } }),
        { mode: 0o600 }
      );
    }
    // restart() starts it again on this port.
    const port = await keptPort();
    const token = randomBytes(24).toString('hex');
    const args = [
      'server',
      '--no-browser',
      '--allow-root',
      '--ip=127.0.0.1',
      `--port=${port}`,
      '--ServerApp.port_retries=0',
      `--ServerApp.root_dir=${rootDir}`,
      // An absolute path: every checkpoint goes to the temporary directory
      // and is removed with it, so serving an existing directory leaves no
      // .ipynb_checkpoints folder in it.
      `--FileCheckpoints.checkpoint_dir=${join(tempDir, 'checkpoints')}`,
      ...kernelTransportArgs(runtimeDir),
      ...(options.extraArgs ?? [])
    ];
    const log: string[] = [];
    const keep = (chunk: Buffer) => {
      log.push(chunk.toString());
      if (log.length > 200) {
        log.shift();
      }
    };
    const launch = (): ChildProcess => {
      // detached: the server gets its own process group, so dispose() can
      // stop it and the kernels it started with one signal.
      const child = spawn(options.command ?? 'jupyter', args, {
        cwd: rootDir,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
        // A private runtime dir keeps connection files out of the user's.
        env: {
          ...process.env,
          ...options.env,
          JUPYTER_RUNTIME_DIR: runtimeDir,
          // First on the config path: read before (and over) the user's.
          ...(secrets.length
            ? {
                JUPYTER_CONFIG_PATH: [
                  configDir,
                  process.env.JUPYTER_CONFIG_PATH
                ]
                  .filter(Boolean)
                  .join(delimiter)
              }
            : {}),
          JUPYTER_TOKEN: token
        }
      });
      // Without a listener, a failed spawn (no `jupyter` on PATH) is an
      // uncaught 'error' event that ends this process.
      child.once('error', error => Private.spawnErrors.set(child, error));
      child.stdout?.on('data', keep);
      child.stderr?.on('data', keep);
      // If this process exits without dispose() (an uncaught error,
      // process.exit), still stop the server: on SIGTERM it shuts its
      // kernels down, which run in their own sessions and would outlive a
      // group kill.
      const onExit = () => Private.killGroup(child.pid!, 'SIGTERM');
      process.once('exit', onExit);
      child.once('exit', () => process.removeListener('exit', onExit));
      return child;
    };
    const server = new JupyterServerProcess(
      launch(),
      tempDir,
      port,
      token,
      log,
      rootDir,
      launch
    );
    try {
      await server._waitUntilUp(options.startTimeoutMs ?? START_TIMEOUT_MS);
    } catch (error) {
      await server.dispose();
      throw error;
    }
    return server;
  }

  /** Connection settings for @jupyterlab/services in Node. */
  get serverSettings(): ServerConnection.ISettings {
    return JupyterServerProcess.makeNodeSettings(this.baseUrl, this.token);
  }

  /** The server's recent log lines, for error messages. */
  get log(): string {
    return this._log.join('');
  }

  /** Stop the server and its kernels, and remove the temporary directory. */
  async dispose(): Promise<void> {
    await this._stop();
    await rm(this._tempDir, { recursive: true, force: true });
  }

  /**
   * Stop the server (its kernels with it) and start it again on the same
   * port, token and root, as an admin restarting it would; resolves once it
   * answers again. Clients see their kernels gone.
   */
  async restart(timeoutMs = START_TIMEOUT_MS): Promise<void> {
    await this._stop();
    this._child = this._spawn();
    await this._waitUntilUp(timeoutMs);
  }

  /** Stop the server process and its kernels. */
  private async _stop(): Promise<void> {
    const child = this._child;
    if (child.exitCode === null && child.signalCode === null && child.pid) {
      const exited = new Promise<void>(resolve => child.once('exit', resolve));
      Private.killGroup(child.pid, 'SIGTERM');
      const timer = setTimeout(
        () => Private.killGroup(child.pid!, 'SIGKILL'),
        5000
      );
      await exited;
      clearTimeout(timer);
      // The kernels are in the same group; make sure none outlives us.
      Private.killGroup(child.pid, 'SIGKILL');
    }
  }

  private async _waitUntilUp(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const url = `${this.baseUrl}api/status`;
    while (Date.now() < deadline) {
      const failed = Private.spawnErrors.get(this._child);
      if (failed) {
        throw new Error(Private.spawnMessage(failed));
      }
      if (this._child.exitCode !== null) {
        throw new Error(
          `jupyter server exited with code ${this._child.exitCode}:\n${this.log}`
        );
      }
      try {
        const response = await fetch(url, {
          headers: { Authorization: `token ${this.token}` }
        });
        if (response.ok) {
          return;
        }
      } catch {
        // Not listening yet.
      }
      await new Promise(resolve => setTimeout(resolve, 100));
    }
    throw new Error(
      `jupyter server did not answer ${url} within ${timeoutMs} ms:\n${this.log}`
    );
  }
}

/** Options and helpers of JupyterServerProcess. */
export namespace JupyterServerProcess {
  /** How to start the server. */
  export interface IOptions {
    /** The executable; default `jupyter`. */
    command?: string;
    /** More command-line arguments (traitlets options). */
    extraArgs?: string[];
    /** How long to wait for /api/status; default START_TIMEOUT_MS (90 s). */
    startTimeoutMs?: number;
    /** More environment variables for the server (and its kernels). */
    env?: Record<string, string>;
    /**
     * Values the server's Notebook Agent extension treats as secrets
     * (`c.NotebookAgent.secrets`): replaced by [redacted] in kernel output.
     * They go in a 0600 config file in the server's temporary directory,
     * never in its argv or environment, so kernels do not inherit them.
     */
    secrets?: string[];
    /**
     * Serve this existing directory (never deleted; no checkpoints are
     * written in it); default: a fresh temporary one, deleted by `dispose()`.
     */
    rootDir?: string;
  }

  /**
   * Connection settings for @jupyterlab/services in Node: the `ws` package
   * for WebSockets (Node 20 has none built in) and Node's fetch, which
   * sends a repeatable request once more when its kept-alive connection
   * was already closed, and whose Stop still reaches a request after a
   * garbage collection (./retrying-fetch.ts).
   */
  export function makeNodeSettings(
    baseUrl: string,
    token: string
  ): ServerConnection.ISettings {
    const base = baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`;
    return ServerConnection.makeSettings({
      baseUrl: base,
      appUrl: base,
      wsUrl: base.replace(/^http/, 'ws'),
      token,
      appendToken: true,
      WebSocket:
        WebSocket as unknown as ServerConnection.ISettings['WebSocket'],
      fetch: retryingFetch,
      Request: SignalKeepingRequest,
      Headers
    });
  }
}

namespace Private {
  /** Why a server process could not be started, by process. */
  export const spawnErrors = new WeakMap<ChildProcess, Error>();

  /** What to tell the user when `jupyter` could not be started. */
  export function spawnMessage(error: Error): string {
    return (error as NodeJS.ErrnoException).code === 'ENOENT'
      ? '`jupyter` was not found on PATH: install Jupyter Server (`pip install jupyterlab` brings it) in the environment this runs in, or activate that environment.'
      : `could not start jupyter: ${error.message}`;
  }

  /** Signal a whole process group; it may already be gone. */
  export function killGroup(pid: number, signal: NodeJS.Signals): void {
    try {
      process.kill(-pid, signal);
    } catch {
      // Already exited.
    }
  }
}
