/**
 * The agent's own overhead per step, on top of the kernel round trip.
 *
 * On one private `jupyter server` (loopback, free port, temporary root,
 * random token; see src/headless/servers/jupyter-server.ts) and one python3
 * kernel, for each case (trivial code `1+1`, and a cell that prints 1 MB),
 * times N executions after a warm-up, two ways, interleaved:
 *  (a) raw: kernel.requestExecute + await future.done (reply and idle);
 *  (b) tool path: ToolRegistry.call('run_cell') → the run_cell tool →
 *      ServerNotebookPort.runCell (watched execution, outputs into the
 *      cell) → observation formatting, on a cell containing the same code.
 * Prints median and p90 of each, and the overhead (b − a) in ms and as a
 * ratio. Target: overhead ≤ 5 ms median (reported, never an exit status).
 *
 * The server is started with the TCP_NODELAY kernel websocket class when
 * the Python package is importable (else as installed); `--stock` forces
 * jupyter_server's own class, where a ~40 ms Nagle delay dominates both
 * numbers (the overhead is still their difference).
 *
 * Then the same on the live port, in a JupyterLab page in headless
 * Chromium (./lib/live-overhead.ts; needs `npm run build:prod`), where the
 * baseline that matters is the cell run as Shift+Enter runs it.
 *
 * Run: npx tsx bench/agent-overhead.ts [N] [--stock] [--headless|--live]   (default N=100, both ports)
 *      npx tsx bench/agent-overhead.ts [N] --profile   (the live 1 MB case, CPU profile per path)
 */
import { spawnSync } from 'node:child_process';
import type { Kernel } from '@jupyterlab/services';
import { runCell } from '../src/agent/tools/kernel-tools';
import { RunState } from '../src/agent/tools/run-state';
import { ToolRegistry, type ITool } from '../src/agent/tools/registry';
import { JupyterServerProcess } from '../src/headless/servers/jupyter-server';
import { ServerNotebookPort } from '../src/headless/server-port/server-port';
import { liveOverhead } from './lib/live-overhead';
import { liveProfile } from './lib/live-profile';
import { fixed, print, runMain, summarize, target } from './lib/report';

const STOCK = process.argv.includes('--stock');
const PROFILE = process.argv.includes('--profile');
const HEADLESS = !process.argv.includes('--live');
const LIVE = !process.argv.includes('--headless');
const N = Number(process.argv.slice(2).find(a => !a.startsWith('--')) ?? 100);
const WARMUP = 20;
const TARGET_MS = 5;
const STOCK_CLASS =
  'jupyter_server.services.kernels.connection.channels.ZMQChannelsWebsocketConnection';
const NODELAY_CLASS =
  'jupyterlab_notebook_agent.kernel_websocket.NoDelayKernelWebsocketConnection';

/** The cells timed: trivial code, and one whose output is 1 MiB of text. */
const CASES = [
  { name: 'trivial (1+1)', code: '1+1' },
  {
    name: '1 MB of output',
    // 8192 lines of 127 characters + newline: exactly 1 MiB on stdout.
    code: "import sys\nsys.stdout.write(''.join('%08d' % i + 'x' * 119 + '\\n' for i in range(8192)))"
  }
];

// @jupyterlab/services logs every kernel status change at debug level.
console.debug = () => undefined;

function nodelayAvailable(): boolean {
  const python = process.env.PYTHON ?? 'python3';
  const probe = spawnSync(python, [
    '-c',
    'import jupyterlab_notebook_agent.kernel_websocket'
  ]);
  return probe.status === 0;
}

async function rawRoundTrip(
  kernel: Kernel.IKernelConnection,
  code: string
): Promise<void> {
  const future = kernel.requestExecute({ code });
  const reply = await future.done;
  if (reply.content.status !== 'ok') {
    throw new Error(`raw execute failed: ${reply.content.status}`);
  }
}

async function timeCase(
  port: ServerNotebookPort,
  kernel: Kernel.IKernelConnection,
  name: string,
  code: string
): Promise<void> {
  const cell = await port.insertCell({ type: 'code', source: code });
  const registry = new ToolRegistry([runCell] as ITool<never>[]);
  const context = {
    notebook: port,
    signal: new AbortController().signal,
    state: new RunState()
  };
  const args = JSON.stringify({ cell_id: cell.id });
  let callId = 0;
  let observed = 0;
  const toolRoundTrip = async () => {
    callId += 1;
    const result = await registry.call(
      { id: `call-${callId}`, name: 'run_cell', arguments: args },
      context
    );
    if (!result.ok) {
      throw new Error(`run_cell failed: ${result.output}`);
    }
    observed = result.output.length;
  };

  for (let i = 0; i < WARMUP; i++) {
    await rawRoundTrip(kernel, code);
    await toolRoundTrip();
  }
  // Interleave (a) and (b) so drift in the machine's load hits both alike.
  const raw: number[] = [];
  const tool: number[] = [];
  for (let i = 0; i < N; i++) {
    let t = performance.now();
    await rawRoundTrip(kernel, code);
    raw.push(performance.now() - t);
    t = performance.now();
    await toolRoundTrip();
    tool.push(performance.now() - t);
  }
  const a = summarize(raw);
  const b = summarize(tool);
  const overhead = b.median - a.median;
  print(`\n${name}: N=${N}, warm-up ${WARMUP}; observation ${observed} chars`);
  print(
    `(a) raw requestExecute      median ${fixed(a.median)} ms  p90 ${fixed(a.p90)} ms`
  );
  print(
    `(b) run_cell tool path      median ${fixed(b.median)} ms  p90 ${fixed(b.p90)} ms`
  );
  print(
    `overhead (b − a)            median ${fixed(overhead)} ms  p90 ${fixed(b.p90 - a.p90)} ms  ratio b/a ${fixed(b.median / a.median)}x`
  );
  target(`${name}: overhead median`, overhead, TARGET_MS, 'at-most', ' ms');
}

async function main(): Promise<void> {
  if (!Number.isInteger(N) || N < 1) {
    throw new Error(
      'usage: npx tsx bench/agent-overhead.ts [N>=1] [--stock] [--headless|--live]'
    );
  }
  if (PROFILE) {
    await liveProfile(CASES[1].code, N);
    return;
  }
  if (HEADLESS) {
    print('=== headless port (ServerNotebookPort in Node) ===');
    await headless();
  }
  if (LIVE) {
    await liveOverhead(CASES, N, WARMUP, TARGET_MS);
  }
}

async function headless(): Promise<void> {
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
    print(
      `kernel websocket: ${STOCK ? 'stock (Nagle on)' : nodelay ? 'TCP_NODELAY (NoDelayKernelWebsocketConnection)' : 'as installed'}`
    );
    for (const { name, code } of CASES) {
      await timeCase(port, kernel, name, code);
    }
  } finally {
    await port?.close({ shutdownKernel: true }).catch(() => undefined);
    await server.dispose();
  }
}

runMain(main);
