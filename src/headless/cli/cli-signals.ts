/**
 * Ctrl-C and other ends of the command line. The first Ctrl-C during a run
 * asks the run to stop, as the sidebar's Stop does (the agent's cells and
 * the notebook are kept and saved as they are); a second one, or one while
 * nothing is running yet (connecting, starting the server), quits at once.
 * SIGTERM and SIGHUP quit at once.
 *
 * Quitting goes through `process.exit`, never a signal's default death:
 * only then do the 'exit' handlers run, which stop the private Jupyter
 * server and its kernels (jupyter-server.ts). The server runs in its own
 * process group, so the terminal's Ctrl-C does not reach it, and a command
 * killed by the signal left it running with the user's kernels.
 */

/** What the first Ctrl-C does while a run is going; null: quit. */
let stopRun: (() => void) | null = null;

/**
 * While a run is going, the first Ctrl-C calls `stop` instead of quitting.
 * Returns the function that ends this (call it when the run has ended).
 */
export function stopRunOnInterrupt(stop: () => void): () => void {
  stopRun = stop;
  return () => {
    if (stopRun === stop) {
      stopRun = null;
    }
  };
}

/** Install the handlers (once, from the bin; tests that call `main()` do not). */
export function installSignalHandlers(say: (line: string) => void): void {
  process.on('SIGINT', () => {
    const stop = stopRun;
    stopRun = null;
    if (!stop) {
      process.exit(130);
    }
    say(
      'notebook-agent: stopping the run (the notebook is kept as it is); press Ctrl-C again to quit at once.'
    );
    stop();
  });
  process.on('SIGTERM', () => process.exit(143));
  process.on('SIGHUP', () => process.exit(129));
}
