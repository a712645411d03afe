/**
 * How the kernels of a server this package starts listen: on Unix sockets
 * in the server's private runtime directory (mkdtemp: mode 0700), not on
 * TCP ports of 127.0.0.1.
 *
 * - No other local user can reach them (a TCP port is open to every local
 *   process; only the connection key guards it).
 * - No port can be taken between jupyter_client choosing it (bind to port
 *   0, then close) and the kernel binding it; a restart that keeps the
 *   ports leaves them free for the whole restart. A kernel whose port was
 *   taken dies at start and the server restarts it. The likely cause (not
 *   reproduced here) of CI once reporting the agent's `while True: pass`
 *   cell killed by a crash, just after a REST restart, beside a lane
 *   starting hundreds of kernels (kernel-faults.test.ts, 2026-12-07).
 *
 * TCP where Unix sockets are missing (Windows) or where a socket's path
 * would pass the 107-byte limit of `sun_path`.
 */
import { join } from 'node:path';

/** The longest path a Unix socket may have (Linux's sun_path, less the NUL). */
const SOCKET_PATH_MAX = 107;

/** The server's command-line arguments for its kernels' transport. */
export function kernelTransportArgs(
  runtimeDir: string,
  platform: NodeJS.Platform = process.platform
): string[] {
  // jupyter_client names them <runtime>/kernel-<uuid>-ipc-<n>.
  const longest = join(runtimeDir, `kernel-${'0'.repeat(36)}-ipc-99999`);
  return platform === 'win32' || Buffer.byteLength(longest) > SOCKET_PATH_MAX
    ? []
    : ['--KernelManager.transport=ipc'];
}
