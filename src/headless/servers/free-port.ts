/**
 * Free loopback ports for processes this side starts (a private Jupyter
 * server, a model server in the tests and benchmarks).
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** Ports other tools on these machines use; never take them. */
const RESERVED_PORTS = new Set([8888, 8889, 8765]);

/** Where `keptPort()` draws from, below Linux's usual ephemeral range. */
const KEPT_LOW = 20000;
const KEPT_HIGH = 32768;

/** A free loopback port from the OS (port 0), avoiding the reserved ones. */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await bindable(0);
    if (port && !RESERVED_PORTS.has(port)) {
      return port;
    }
  }
}

/**
 * A free loopback port for a server that stops and starts again on the same
 * port (JupyterServerProcess.restart): drawn outside the OS's ephemeral
 * range, which port 0 draws from, so that while the server is down no
 * `freePort()` of this or another process (another Jest worker) is handed
 * its port. CI once saw two servers race for one port that way.
 */
export async function keptPort(): Promise<number> {
  const [ephemeralLow] = ephemeralRange();
  const high = Math.min(KEPT_HIGH, ephemeralLow);
  for (let tries = 0; high > KEPT_LOW && tries < 50; tries++) {
    const candidate = KEPT_LOW + Math.floor(Math.random() * (high - KEPT_LOW));
    if (await bindable(candidate).catch(() => 0)) {
      return candidate;
    }
  }
  return freePort();
}

/** Binds `port` on loopback and closes it: the port bound (the OS's for 0). */
function bindable(port: number): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(port, '127.0.0.1', () => {
      const address = probe.address();
      const found = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(found));
    });
  });
}

/** The OS's ephemeral port range (Linux's default where it cannot be read). */
function ephemeralRange(): [number, number] {
  try {
    const [low, high] = readFileSync(
      '/proc/sys/net/ipv4/ip_local_port_range',
      'utf8'
    )
      .trim()
      .split(/\s+/)
      .map(Number);
    if (low > 0 && high >= low) {
      return [low, high];
    }
  } catch {
    // Not Linux: its default is close enough (macOS starts at 49152).
  }
  return [32768, 60999];
}
