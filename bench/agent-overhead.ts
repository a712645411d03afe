/**
 * The agent's own overhead per step, on top of the kernel round trip.
 *
 * On one private `jupyter server` (loopback, free port, temporary root,
 * random token; see src/headless/jupyter-server.ts) and one python3
 * kernel, times N executions of `1+1`, after a warm-up, two ways:
 *  (a) raw: kernel.requestExecute + await future.done (reply and idle);
 *  (b) tool path: ToolRegistry.call('run_cell') → the run_cell tool →
 *      ServerNotebookPort.runCell (watched execution, outputs into the
 *      cell) → observation formatting, on a cell containing `1+1`.
 * Prints median and p90 of each, and the overhead (b − a) in ms and as a
 * ratio. Target: overhead ≤ 5 ms median (PASS/FAIL; exit status 1 on FAIL).
 *
 * The server is started with the TCP_NODELAY kernel websocket class when
 * the Python package is importable (else as installed); `--stock` forces
 * jupyter_server's own class, where a ~40 ms Nagle delay dominates both
 * numbers (the overhead is still their difference).
 *
 * Run: npx tsx bench/agent-overhead.ts [N] [--stock]   (default N=100)
 */
import { spawnSync } from 'node:child_process';
import type { Kernel } from '@jupyterlab/services';
import { runCell } from '../src/agent/tools/kernel-tools';
import { RunState } from '../src/agent/tools/run-state';
import { ToolRegistry, type ITool } from '../src/agent/tools/registry';
import { JupyterServerProcess } from '../src/headless/jupyter-server';
import { ServerNotebookPort } from '../src/headless/server-port';

const STOCK = process.argv.includes('--stock');
const N = Number(process.argv.slice(2).find(a => !a.startsWith('--')) ?? 100);
const WARMUP = 20;
const CODE = '1+1';
const TARGET_MS = 5;
const STOCK_CLASS =
  'jupyter_server.services.kernels.connection.channels.ZMQChannelsWebsocketConnection';
const NODELAY_CLASS =
  'jupyterlab_notebook_agent.kernel_websocket.NoDelayKernelWebsocketConnection';

// @jupyterlab/services logs every kernel status change at debug level.
console.debug = () => undefined;

/** Benchmarks report on stdout (lint keeps console.log out of the code). */
function print(line: string): void {
  process.stdout.write(`${line}\n`);
}

function quantile(sorted: number[], q: number): number {
  const index = Math.min(sorted.length - 1, Math.floor(q * sorted.length));
  return sorted[index];
}

function summary(samples: number[]): { median: number; p90: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  return { median: quantile(sorted, 0.5), p90: quantile(sorted, 0.9) };
}

function nodelayAvailable(): boolean {
  const python = process.env.PYTHON ?? 'python3';
  const probe = spawnSync(python, [
    '-c',
    'import jupyterlab_notebook_agent.kernel_websocket'
  ]);
  return probe.status === 0;
}

async function rawRoundTrip(kernel: Kernel.IKernelConnection): Promise<void> {
  const future = kernel.requestExecute({ code: CODE });
  const reply = await future.done;
  if (reply.content.status !== 'ok') {
    throw new Error(`raw execute failed: ${reply.content.status}`);
  }
}

async function main(): Promise<number> {
  if (!Number.isInteger(N) || N < 1) {
    process.stderr.write('usage: npx tsx bench/agent-overhead.ts [N>=1]\n');
    return 2;
  }
  const nodelay = !STOCK && nodelayAvailable();
  const wsClass = STOCK ? STOCK_CLASS : nodelay ? NODELAY_CLASS : null;
  const server = await JupyterServerProcess.start({
    extraArgs: wsClass
      ? [`--ServerApp.kernel_websocket_connection_class=${wsClass}`]
      : []
  });
  let port: ServerNotebookPort | null = null;
  try {
    port = await ServerNotebookPort.open({
      serverSettings: server.serverSettings,
      path: 'bench.ipynb',
      createIfMissing: true
    });
    const kernel = port.kernel;
    if (!kernel) {
      throw new Error('no kernel');
    }
    const cell = await port.insertCell({ type: 'code', source: CODE });
    const registry = new ToolRegistry([runCell] as ITool<never>[]);
    const context = {
      notebook: port,
      signal: new AbortController().signal,
      state: new RunState()
    };
    const args = JSON.stringify({ cell_id: cell.id });
    let callId = 0;
    const toolRoundTrip = async () => {
      callId += 1;
      const result = await registry.call(
        { id: `call-${callId}`, name: 'run_cell', arguments: args },
        context
      );
      if (!result.ok) {
        throw new Error(`run_cell failed: ${result.output}`);
      }
    };

    for (let i = 0; i < WARMUP; i++) {
      await rawRoundTrip(kernel);
      await toolRoundTrip();
    }
    // Interleave (a) and (b) so drift in the machine's load hits both alike.
    const raw: number[] = [];
    const tool: number[] = [];
    for (let i = 0; i < N; i++) {
      let t = performance.now();
      await rawRoundTrip(kernel);
      raw.push(performance.now() - t);
      t = performance.now();
      await toolRoundTrip();
      tool.push(performance.now() - t);
    }

    const a = summary(raw);
    const b = summary(tool);
    const overhead = b.median - a.median;
    const fmt = (x: number) => x.toFixed(2);
    print(
      `kernel websocket: ${STOCK ? 'stock (Nagle on)' : nodelay ? 'TCP_NODELAY (NoDelayKernelWebsocketConnection)' : 'as installed'}; N=${N}, warm-up ${WARMUP}`
    );
    print(
      `(a) raw requestExecute      median ${fmt(a.median)} ms  p90 ${fmt(a.p90)} ms`
    );
    print(
      `(b) run_cell tool path      median ${fmt(b.median)} ms  p90 ${fmt(b.p90)} ms`
    );
    print(
      `overhead (b − a)            median ${fmt(overhead)} ms  p90 ${fmt(b.p90 - a.p90)} ms  ratio b/a ${(b.median / a.median).toFixed(2)}x`
    );
    const pass = overhead <= TARGET_MS;
    print(
      `target: overhead ≤ ${TARGET_MS} ms median: ${pass ? 'PASS' : 'FAIL'}`
    );
    return pass ? 0 : 1;
  } finally {
    await port?.close({ shutdownKernel: true }).catch(() => undefined);
    await server.dispose();
  }
}

main().then(
  code => process.exit(code),
  error => {
    console.error(error);
    process.exit(1);
  }
);
