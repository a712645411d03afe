/**
 * `notebook-agent fix`: the agent repairs one cell of an existing notebook,
 * reruns it, and the fix is saved (and printed as a diff) only when it
 * worked; otherwise the file is left as it was.
 */
import { stat } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { ContentsManager } from '@jupyterlab/services';
import { createPatch } from 'diff';
import type { CliCommand } from './cli-args';
import { CliError, checkModelEndpoint, connectJupyter } from './cli-connect';
import { printTranscript } from './cli-output';
import { stopRunOnInterrupt } from './cli-signals';
import { conflictMessage, saveOrCopy } from './cli-save';
import { cliMcpTools } from './cli-mcp';
import { errorMessage, sessionFor, shown } from './cli-session';
import type { ExitCode, ICliIO } from './cli-io';
import { ServerNotebookPort } from '../server-port/server-port';

/** Run `fix`; resolves with the exit code. */
export async function fix(
  command: Extract<CliCommand, { command: 'fix' }>,
  io: ICliIO
): Promise<ExitCode> {
  const { common } = command;
  const file = resolve(io.cwd, command.notebook);
  if (!common.server) {
    // Before a server is started in its folder (a missing folder made
    // that fail as "spawn jupyter ENOENT").
    const found = await stat(file).catch(() => null);
    if (!found) {
      throw new CliError(`no such notebook: ${command.notebook}`);
    }
    if (!found.isFile()) {
      throw new CliError(`${command.notebook} is not a notebook file.`);
    }
  }
  await checkModelEndpoint(common);
  const path = common.server ? command.notebook : basename(file);
  const server = await connectJupyter(common, dirname(file));
  let port: ServerNotebookPort | null = null;
  try {
    if (common.server && !(await onServer(server.settings, path))) {
      throw new CliError(
        `no such notebook: ${command.notebook} (on the Jupyter server at ${server.url}; paths are relative to its root)`
      );
    }
    port = await ServerNotebookPort.open({
      serverSettings: server.settings,
      path
    });
    const mcp = await cliMcpTools(server.settings, io.err);
    const { session, model } = sessionFor(
      common,
      port,
      server.settings,
      io.err,
      mcp
    );
    const stopPrinting = printTranscript(session, io.err);
    const endInterrupt = stopRunOnInterrupt(() => session.stop());
    let result;
    try {
      result = await session.fixCell(
        command.cell,
        { model: () => model, notebook: port },
        { maxAttempts: command.attempts }
      );
    } finally {
      endInterrupt();
    }
    stopPrinting();
    const error = session.getSnapshot().error;
    if (!result || error) {
      // Nothing of the user's is kept half-changed.
      await session.rejectReview();
      io.err(errorMessage(error));
      return 1;
    }
    if (result.status !== 'fixed') {
      await session.rejectReview();
      io.out(
        `${command.notebook}: not fixed after ${result.attempts} attempt(s); the file is unchanged.\n${result.problem ?? ''}`
      );
      return 2;
    }
    session.acceptReview();
    const saved = await saveOrCopy(port);
    if (saved.copy) {
      io.err(
        conflictMessage(
          command.notebook,
          shown(command.notebook, saved.path, port)
        )
      );
      return 1;
    }
    for (const change of result.changes) {
      io.out(
        createPatch(
          `cell ${change.cellId} (${change.kind})`,
          change.before ?? '',
          change.after ?? ''
        ).trimEnd()
      );
    }
    io.out(`${command.notebook}: fixed in ${result.attempts} attempt(s).`);
    return 0;
  } finally {
    await port?.close();
    await server.dispose();
  }
}

/** Whether the server has a file at `path`. */
async function onServer(
  serverSettings: ContentsManager['serverSettings'],
  path: string
): Promise<boolean> {
  const contents = new ContentsManager({ serverSettings });
  try {
    await contents.get(path, { content: false });
    return true;
  } catch {
    return false;
  } finally {
    contents.dispose();
  }
}
