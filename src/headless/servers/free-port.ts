/**
 * A free loopback port for a process this side starts (a private Jupyter
 * server, a model server in the tests and benchmarks).
 */
import { createServer } from 'node:net';

/** Ports other tools on these machines use; never take them. */
const RESERVED_PORTS = new Set([8888, 8889, 8765]);

/** A free loopback port, avoiding the reserved ones. */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await new Promise<number>((resolve, reject) => {
      const probe = createServer();
      probe.once('error', reject);
      probe.listen(0, '127.0.0.1', () => {
        const address = probe.address();
        const found = typeof address === 'object' && address ? address.port : 0;
        probe.close(() => resolve(found));
      });
    });
    if (port && !RESERVED_PORTS.has(port)) {
      return port;
    }
  }
}
