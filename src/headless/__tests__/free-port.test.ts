/**
 * Ports for the private servers: a server that restarts keeps a port no
 * `freePort()` can be handed while it is down (outside the ephemeral range
 * that port 0 draws from).
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { freePort, keptPort } from '../servers/free-port';

const [ephemeralLow] = readFileSync(
  '/proc/sys/net/ipv4/ip_local_port_range',
  'utf8'
)
  .trim()
  .split(/\s+/)
  .map(Number);

function listen(port: number): Promise<() => Promise<void>> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () =>
      resolve(() => new Promise(done => server.close(() => done())))
    );
  });
}

test('a kept port is free and outside the range port 0 draws from', async () => {
  for (let i = 0; i < 20; i++) {
    const port = await keptPort();
    expect(port).toBeGreaterThanOrEqual(20000);
    expect(port).toBeLessThan(ephemeralLow);
    const close = await listen(port);
    await close();
  }
});

test('freePort draws from the ephemeral range, which kept ports avoid', async () => {
  const handed = new Set<number>();
  for (let i = 0; i < 200; i++) {
    handed.add(await freePort());
  }
  for (const port of handed) {
    expect(port).toBeGreaterThanOrEqual(ephemeralLow);
  }
});
