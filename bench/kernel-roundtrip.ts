/**
 * Kernel round trip through the Jupyter server's kernel websocket, with and
 * without TCP_NODELAY.
 *
 * Starts private `jupyter server`s (loopback, free ports, temporary root
 * directories, random tokens): one forced to jupyter_server's stock kernel
 * websocket connection class, one forced to ours
 * (jupyterlab_notebook_agent.kernel_websocket.NoDelayKernelWebsocketConnection),
 * and one with no flag at all (whatever the installed extension does by
 * default). On each it starts a python3 kernel through @jupyterlab/services
 * in Node, warms up, then times `1+1` (requestExecute, await future.done)
 * N times. Also times the same over raw ZMQ with jupyter_client (the floor).
 * Stops every server and kernel at the end, even on error.
 *
 * Run: npx tsx bench/kernel-roundtrip.ts [N]   (default N=100)
 */
import { spawnSync } from 'node:child_process';
import { KernelManager, type Kernel } from '@jupyterlab/services';
import { JupyterServerProcess } from '../src/headless/servers/jupyter-server';

const N = Number(process.argv[2] ?? 100);
if (!Number.isInteger(N) || N < 1) {
  process.stderr.write('usage: npx tsx bench/kernel-roundtrip.ts [N>=1]\n');
  process.exit(2);
}
const WARMUP = 10;
const CODE = '1+1';
/** The whole run must end well within a minute; give up after this. */
const WATCHDOG_MS = 55000;
const PYTHON = process.env.PYTHON ?? 'python3';

const STOCK_CLASS =
  'jupyter_server.services.kernels.connection.channels.ZMQChannelsWebsocketConnection';
const NODELAY_CLASS =
  'jupyterlab_notebook_agent.kernel_websocket.NoDelayKernelWebsocketConnection';

const CONFIGS: { label: string; extraArgs: string[] }[] = [
  {
    label: 'stock',
    extraArgs: [`--ServerApp.kernel_websocket_connection_class=${STOCK_CLASS}`]
  },
  {
    label: 'nodelay',
    extraArgs: [
      `--ServerApp.kernel_websocket_connection_class=${NODELAY_CLASS}`
    ]
  },
  { label: 'as installed (no flag)', extraArgs: [] }
];

/** A private server (src/headless/servers/jupyter-server.ts) and what it measures. */
interface IServer {
  label: string;
  process: JupyterServerProcess;
}

interface IStats {
  median: number;
  p90: number;
  min: number;
}

// @jupyterlab/services narrates websocket and kernel status changes with
// console.debug; keep the bench's output to its results.
console.debug = () => undefined;

function print(line: string): void {
  process.stdout.write(`${line}\n`);
}

function stats(samples: number[]): IStats {
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = (q: number) =>
    sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
  return { median: rank(0.5), p90: rank(0.9), min: sorted[0] };
}

function fmt(s: IStats): string {
  return `median ${s.median.toFixed(1)} ms  p90 ${s.p90.toFixed(1)} ms  min ${s.min.toFixed(1)} ms`;
}

async function startServer(
  label: string,
  extraArgs: string[],
  servers: IServer[]
): Promise<IServer> {
  const server = {
    label,
    process: await JupyterServerProcess.start({ extraArgs })
  };
  servers.push(server);
  return server;
}

async function roundTrip(kernel: Kernel.IKernelConnection): Promise<number> {
  const start = performance.now();
  const future = kernel.requestExecute({ code: CODE, store_history: false });
  const reply = await future.done;
  const elapsed = performance.now() - start;
  if (reply.content.status !== 'ok') {
    throw new Error(`execute failed: ${JSON.stringify(reply.content)}`);
  }
  return elapsed;
}

async function measureServer(
  server: IServer,
  managers: KernelManager[]
): Promise<IStats> {
  const manager = new KernelManager({
    serverSettings: server.process.serverSettings
  });
  managers.push(manager);
  await manager.ready;
  const kernel = await manager.startNew({ name: 'python3' });
  try {
    await kernel.info;
    for (let i = 0; i < WARMUP; i++) {
      await roundTrip(kernel);
    }
    const samples: number[] = [];
    for (let i = 0; i < N; i++) {
      samples.push(await roundTrip(kernel));
    }
    return stats(samples);
  } finally {
    await kernel.shutdown().catch(() => undefined);
    kernel.dispose();
  }
}

/** The floor: the same round trip over raw ZMQ with jupyter_client. */
function zmqFloor(): IStats | string {
  const script = `
import json, sys, time
from jupyter_client.manager import start_new_kernel
km, kc = start_new_kernel(kernel_name="python3")
try:
    quiet = lambda msg: None
    for _ in range(${WARMUP}):
        kc.execute_interactive(${JSON.stringify(CODE)}, store_history=False, output_hook=quiet, timeout=30)
    samples = []
    for _ in range(${N}):
        t = time.perf_counter()
        reply = kc.execute_interactive(${JSON.stringify(CODE)}, store_history=False, output_hook=quiet, timeout=30)
        samples.append((time.perf_counter() - t) * 1000)
        assert reply["content"]["status"] == "ok"
    print(json.dumps(samples))
finally:
    kc.stop_channels()
    km.shutdown_kernel(now=True)
`;
  const result = spawnSync(PYTHON, ['-c', script], {
    encoding: 'utf8',
    timeout: 30000
  });
  if (result.status !== 0) {
    return `unavailable (${result.error?.message ?? result.stderr.trim().split('\n').pop()})`;
  }
  const lines = result.stdout.trim().split('\n');
  return stats(JSON.parse(lines[lines.length - 1]) as number[]);
}

async function main(): Promise<number> {
  const servers: IServer[] = [];
  const managers: KernelManager[] = [];
  let stopping: Promise<void> | undefined;
  const cleanup = () =>
    (stopping ??= (async () => {
      for (const manager of managers) {
        manager.dispose();
      }
      await Promise.all(servers.map(server => server.process.dispose()));
    })());
  let interrupted = false;
  const onSignal = (signal: NodeJS.Signals) => {
    interrupted = true;
    void cleanup().then(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const watchdog = setTimeout(() => {
    process.stderr.write(`gave up after ${WATCHDOG_MS / 1000} s\n`);
    void cleanup().then(() => process.exit(2));
  }, WATCHDOG_MS);

  try {
    print(
      `kernel round trip: \`${CODE}\`, requestExecute + await future.done, ` +
        `@jupyterlab/services in Node ${process.version}, ` +
        `${WARMUP} warm-up + ${N} timed`
    );
    const started = await Promise.all(
      CONFIGS.map(c => startServer(c.label, c.extraArgs, servers))
    );
    const results = new Map<string, IStats>();
    for (const server of started) {
      const result = await measureServer(server, managers);
      results.set(server.label, result);
      print(`${server.label.padEnd(24)} ${fmt(result)}`);
    }
    const floor = zmqFloor();
    print(
      `${'raw ZMQ (jupyter_client)'.padEnd(24)} ${typeof floor === 'string' ? floor : fmt(floor)}`
    );
    const stock = results.get('stock')!;
    const nodelay = results.get('nodelay')!;
    print(
      `ratio stock/nodelay: median ${(stock.median / nodelay.median).toFixed(1)}x  ` +
        `p90 ${(stock.p90 / nodelay.p90).toFixed(1)}x`
    );
    return 0;
  } catch (error) {
    if (interrupted) {
      return 130;
    }
    process.stderr.write(`kernel-roundtrip failed: ${String(error)}\n`);
    for (const server of servers) {
      const tail = server.process.log.split('\n').slice(-20).join('\n');
      process.stderr.write(
        `--- ${server.label} server log (tail) ---\n${tail}\n`
      );
    }
    return 1;
  } finally {
    clearTimeout(watchdog);
    await cleanup();
  }
}

void main().then(code => process.exit(code));
