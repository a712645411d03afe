/**
 * `notebook-agent`: the agent on the command line, headless. `generate`
 * writes a new, executed and verified notebook; `fix` repairs a cell of an
 * existing one. Both use the same session and workflows as the sidebar,
 * over a Jupyter server: the one given, or a private one started for the
 * run (serving the notebook's directory) and stopped after.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { ContentsManager, type ServerConnection } from '@jupyterlab/services';
import { createPatch } from 'diff';
import { capabilitiesFor } from '../agent/model/capabilities';
import { OpenAIChatClient } from '../agent/model/openai-client';
import { AgentSession } from '../agent/session';
import { agentTools } from '../agent/tools/all-tools';
import { ToolRegistry } from '../agent/tools/registry';
import type { IAgentError } from '../agent/types';
import {
  CliUsageError,
  parseCli,
  USAGE,
  type CliCommand,
  type ICommonOptions
} from './cli-args';
import { printTranscript } from './cli-output';
import { conflictMessage, saveOrCopy } from './cli-save';
import { autoApprove } from './auto-approve';
import { NotebookConflictError } from './disk-version';
import { JupyterServerProcess } from './jupyter-server';
import { ServerNotebookPort } from './server-port';

/** Exit codes: 0 done (verified/fixed), 1 failed, 2 done but unverified/unfixed, 64 usage. */
export type ExitCode = 0 | 1 | 2 | 64;

/** Where output goes (tests capture it). */
export interface ICliIO {
  out: (line: string) => void;
  err: (line: string) => void;
  env: Record<string, string | undefined>;
  cwd: string;
}

const SAVE_EVERY_MS = 15_000;

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
      ? await generate(command, io)
      : await fix(command, io);
  } catch (error) {
    io.err(`notebook-agent: ${(error as Error).message}`);
    return 1;
  }
}

/** A Jupyter server for the run: the given one, or a private one. */
async function connect(
  common: ICommonOptions,
  rootDir: string
): Promise<{
  settings: ServerConnection.ISettings;
  dispose: () => Promise<void>;
}> {
  if (common.server) {
    return {
      settings: JupyterServerProcess.makeNodeSettings(
        common.server,
        common.token
      ),
      dispose: async () => undefined
    };
  }
  const server = await JupyterServerProcess.start({ rootDir });
  return {
    settings: JupyterServerProcess.makeNodeSettings(
      server.baseUrl,
      server.token
    ),
    dispose: () => server.dispose()
  };
}

function sessionFor(
  common: ICommonOptions,
  port: ServerNotebookPort
): {
  session: AgentSession;
  model: OpenAIChatClient;
} {
  const model = new OpenAIChatClient({
    baseURL: common.baseUrl,
    model: common.model,
    apiKey: common.apiKey
  });
  const caps = capabilitiesFor(common.model);
  const session = new AgentSession({
    tools: new ToolRegistry(agentTools()),
    // Nobody is there to approve: the user asked for this run by running it.
    approvalMode: () => 'run-everything',
    maxSteps: () => common.maxSteps,
    contextTokens: () => caps.contextTokens,
    toolProtocol: () => caps.tools,
    parallelToolCalls: () => caps.parallelToolCalls,
    runSettings: () => ({
      softTimeoutMs: 30_000,
      hardTimeoutMs: common.timeoutSeconds * 1000,
      allowDeleteAnyCell: false
    })
  });
  // Nobody is there to answer an approval request either: without this, a
  // call that always asks (restart_kernel, installs during a fix) hung.
  autoApprove(session, { ownsKernel: () => port.ownsKernel });
  return { session, model };
}

/** Where a server path ends up for the user: beside the notebook they named. */
function shown(
  notebook: string,
  serverPath: string,
  port: ServerNotebookPort
): string {
  return serverPath === port.path
    ? notebook
    : notebook.slice(0, notebook.length - basename(port.path).length) +
        basename(serverPath);
}

async function generate(
  command: Extract<CliCommand, { command: 'generate' }>,
  io: ICliIO
): Promise<ExitCode> {
  const { common } = command;
  const outFile = resolve(io.cwd, command.out);
  // A private server serves the output's directory; a given one, its own root.
  const path = common.server ? command.out : basename(outFile);
  if (!common.server) {
    await mkdir(dirname(outFile), { recursive: true });
  }
  const server = await connect(common, dirname(outFile));
  const contents = new ContentsManager({ serverSettings: server.settings });
  let port: ServerNotebookPort | null = null;
  try {
    if (!command.force && (await exists(contents, path))) {
      io.err(
        `notebook-agent: ${command.out} exists; pass --force to replace it, or choose another --out.`
      );
      return 1;
    }
    const attachments = [];
    for (const file of command.attach) {
      attachments.push(
        await attach(contents, resolve(io.cwd, file), dirname(path))
      );
    }
    await contents.save(path, {
      type: 'notebook',
      format: 'json',
      content: emptyNotebook(command.kernel ?? 'python3')
    });
    port = await ServerNotebookPort.open({
      serverSettings: server.settings,
      path,
      kernelName: command.kernel
    });
    const { session, model } = sessionFor(common, port);
    const stopPrinting = printTranscript(session, io.err);
    const opened = port;
    const timer = setInterval(
      () =>
        void opened.save().catch(error => {
          // Changed on disk: stop saving over it; the end writes a copy.
          if (error instanceof NotebookConflictError) {
            clearInterval(timer);
          }
        }),
      SAVE_EVERY_MS
    );
    const stop = () => session.stop();
    process.once('SIGINT', stop);
    try {
      const result = await session.generate(
        command.prompt,
        { model: () => model, notebook: port },
        { attachments }
      );
      const saved = await saveOrCopy(port);
      stopPrinting();
      if (saved.copy) {
        io.err(
          conflictMessage(command.out, shown(command.out, saved.path, port))
        );
        return 1;
      }
      const error = session.getSnapshot().error;
      if (!result || error) {
        reportError(io, error);
        return 1;
      }
      io.out(`${command.out}: ${result.status}`);
      return result.status === 'verified'
        ? 0
        : result.status === 'unverified'
          ? 2
          : 1;
    } finally {
      clearInterval(timer);
      process.removeListener('SIGINT', stop);
    }
  } finally {
    await port?.close();
    contents.dispose();
    await server.dispose();
  }
}

async function fix(
  command: Extract<CliCommand, { command: 'fix' }>,
  io: ICliIO
): Promise<ExitCode> {
  const { common } = command;
  const file = resolve(io.cwd, command.notebook);
  const path = common.server ? command.notebook : basename(file);
  const server = await connect(common, dirname(file));
  let port: ServerNotebookPort | null = null;
  try {
    port = await ServerNotebookPort.open({
      serverSettings: server.settings,
      path
    });
    const { session, model } = sessionFor(common, port);
    const stopPrinting = printTranscript(session, io.err);
    const result = await session.fixCell(
      command.cell,
      { model: () => model, notebook: port },
      { maxAttempts: command.attempts }
    );
    stopPrinting();
    const error = session.getSnapshot().error;
    if (!result || error) {
      // Nothing of the user's is kept half-changed.
      await session.rejectReview();
      reportError(io, error);
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

/** Put a file next to the notebook, through the server's contents API. */
async function attach(
  contents: ContentsManager,
  file: string,
  directory: string
): Promise<{ name: string; size: number }> {
  const data = await readFile(file);
  const name = basename(file);
  const target = directory && directory !== '.' ? `${directory}/${name}` : name;
  await contents.save(target, {
    type: 'file',
    format: 'base64',
    content: data.toString('base64')
  });
  return { name, size: data.length };
}

async function exists(
  contents: ContentsManager,
  path: string
): Promise<boolean> {
  try {
    await contents.get(path, { content: false });
    return true;
  } catch {
    return false;
  }
}

function emptyNotebook(kernel: string): Record<string, unknown> {
  return {
    cells: [],
    metadata: { kernelspec: { name: kernel, display_name: kernel } },
    nbformat: 4,
    nbformat_minor: 5
  };
}

function reportError(io: ICliIO, error: IAgentError | null): void {
  io.err(
    error
      ? `notebook-agent: ${error.message}\n${error.hint}`
      : 'notebook-agent: the run did not complete.'
  );
}
