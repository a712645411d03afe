/**
 * `notebook-agent`: the agent on the command line, headless. `generate`
 * writes a new, executed and verified notebook (cli-generate.ts); `fix`
 * repairs a cell of an existing one (cli-fix.ts). Both use the same session
 * and workflows as the sidebar, over a Jupyter server: the one given, or a
 * private one started for the run (serving the notebook's directory) and
 * stopped after (cli-connect.ts).
 *
 * This file only parses and dispatches; the commands load on demand, so
 * `--help` and a usage mistake answer without loading the Jupyter client.
 */
import { CliUsageError, parseCli, USAGE, type CliCommand } from './cli-args';
import type { ExitCode, ICliIO } from './cli-io';

export { installSignalHandlers } from './cli-signals';

/** Run the command line; resolves with the exit code. */
export async function main(
  argv: string[],
  io: ICliIO = {
    out: line => process.stdout.write(`${line}\n`),
    err: line => process.stderr.write(`${line}\n`),
    env: process.env,
    cwd: process.cwd()
  }
): Promise<ExitCode> {
  if (argv[0] === 'mcp') {
    // The stdio bridge for outside agents: no model, options of its own.
    return (await import('./mcp-bridge/bridge-command')).mcpCommand(
      argv.slice(1),
      io
    );
  }
  if (argv[0] === 'mcp-worker') {
    // The Jupyter server's worker for notebooks not open (outside_worker.py).
    return (await import('./mcp-bridge/bridge-command')).mcpWorkerCommand(
      argv.slice(1),
      io
    );
  }
  let command: CliCommand;
  try {
    command = parseCli(argv, io.env);
  } catch (error) {
    if (error instanceof CliUsageError) {
      io.err(`notebook-agent: ${error.message}\n\n${USAGE}`);
      return 64;
    }
    throw error;
  }
  if (command.command === 'help') {
    io.out(USAGE);
    return 0;
  }
  try {
    return command.command === 'generate'
      ? await (await import('./cli-generate')).generate(command, io)
      : await (await import('./cli-fix')).fix(command, io);
  } catch (error) {
    io.err(`notebook-agent: ${(error as Error).message}`);
    return 1;
  }
}
