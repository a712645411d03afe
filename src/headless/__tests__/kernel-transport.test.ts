/**
 * The kernels' transport for servers this package starts: Unix sockets
 * where they work, TCP where they do not (./servers/kernel-transport.ts).
 * That a real kernel then listens on a socket in the private runtime
 * directory is checked in server-port.test.ts.
 */
import { kernelTransportArgs } from '../servers/kernel-transport';

describe('kernelTransportArgs', () => {
  it('puts kernels on Unix sockets on Linux and macOS', () => {
    for (const platform of ['linux', 'darwin'] as const) {
      expect(
        kernelTransportArgs(
          '/tmp/notebook-agent-server-a1B2c3/runtime',
          platform
        )
      ).toEqual(['--KernelManager.transport=ipc']);
    }
  });

  it('keeps TCP on Windows', () => {
    expect(kernelTransportArgs('C:\\Temp\\runtime', 'win32')).toEqual([]);
  });

  it('keeps TCP when a socket path would pass the 107-byte limit', () => {
    // 54 bytes of socket name (with its slash): a 53-byte directory is the
    // longest that fits.
    const fits = `/${'d'.repeat(52)}`;
    expect(kernelTransportArgs(fits, 'linux')).toEqual([
      '--KernelManager.transport=ipc'
    ]);
    expect(kernelTransportArgs(`${fits}d`, 'linux')).toEqual([]);
    // Bytes, not characters: a non-ASCII directory name counts its UTF-8.
    // (28 characters, 55 bytes.)
    expect(kernelTransportArgs(`/${'é'.repeat(27)}`, 'linux')).toEqual([]);
  });
});
