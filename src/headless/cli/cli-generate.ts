/**
 * `notebook-agent generate`: a new notebook, written, executed and verified
 * by the agent. What the run creates (the notebook, copies of attachments,
 * the folder for --out) is taken back when the run fails before the agent
 * wrote a cell, so a failed start leaves nothing behind; a notebook that
 * --force was to replace gets its old content back.
 */
import { lstat, mkdir, rmdir } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import {
  ContentsManager,
  type Contents,
  type ServerConnection
} from '@jupyterlab/services';
import type { IFileAttachment } from '../../agent/context/attachments';
import { pathExists } from '../../kernel/path-exists';
import type { CliCommand } from './cli-args';
import { attachFile, checkAttachments, type AttachTarget } from './cli-attach';
import { CliError, checkModelEndpoint, connectJupyter } from './cli-connect';
import { printTranscript } from './cli-output';
import { stopRunOnInterrupt } from './cli-signals';
import { conflictMessage, saveOrCopy } from './cli-save';
import type { IExtraTools } from '../../agent/tools/mcp-tools';
import { cliMcpTools } from './cli-mcp';
import { errorMessage, sessionFor, shown } from './cli-session';
import type { ExitCode, ICliIO } from './cli-io';
import { NotebookConflictError } from '../server-port/disk-version';
import { emptyNotebook, toNotebookContent } from '../server-port/notebook-file';
import { ServerNotebookPort } from '../server-port/server-port';

const SAVE_EVERY_MS = 15_000;

/** Run `generate`; resolves with the exit code. */
export async function generate(
  command: Extract<CliCommand, { command: 'generate' }>,
  io: ICliIO
): Promise<ExitCode> {
  const { common } = command;
  const outFile = resolve(io.cwd, command.out);
  // On the private server's disk, an existing --out is seen at once.
  if (!common.server && !command.force && (await onDisk(outFile))) {
    return refuseToReplace(command.out, io);
  }
  const files = await checkAttachments(command.attach, io.cwd);
  await checkModelEndpoint(common);
  // A private server serves the output's directory; a given one, its own root.
  const path = common.server ? command.out : basename(outFile);
  const createdDir = common.server ? undefined : await makeDir(outFile);
  const undo: Array<() => Promise<unknown>> = [];
  let succeeded = false;
  try {
    const server = await connectJupyter(common, dirname(outFile));
    const contents = new ContentsManager({ serverSettings: server.settings });
    let port: ServerNotebookPort | null = null;
    try {
      const directory = common.server ? serverDir(path) : '';
      if (directory && !(await pathExists(contents, directory))) {
        throw new CliError(
          `no such directory on the Jupyter server at ${server.url}: ${directory} (create it, or choose another --out).`
        );
      }
      if (!command.force && (await pathExists(contents, path))) {
        return refuseToReplace(command.out, io);
      }
      const previous = command.force ? await existing(contents, path) : null;
      await contents.save(path, {
        type: 'notebook',
        format: 'json',
        content: toNotebookContent(emptyNotebook(command.kernel ?? 'python3'))
      });
      undo.push(() =>
        previous ? contents.save(path, previous) : contents.delete(path)
      );
      port = await ServerNotebookPort.open({
        serverSettings: server.settings,
        path,
        kernelName: command.kernel
      });
      const target: AttachTarget = common.server
        ? { kind: 'server', contents, directory }
        : { kind: 'disk', directory: dirname(outFile) };
      const attachments: IFileAttachment[] = [];
      for (const file of files) {
        const attached = await attachFile(file, target);
        undo.push(attached.undo);
        attachments.push(attached.attachment);
      }
      const mcp = await cliMcpTools(server.settings, io.err);
      const code = await run(
        command,
        io,
        port,
        server.settings,
        attachments,
        mcp
      );
      succeeded = code !== null;
      return code ?? 1;
    } finally {
      // An unexpected error after the agent wrote cells keeps them.
      const wrote = (await port?.getCells())?.length ?? 0;
      await port?.close();
      if (!succeeded && !wrote) {
        for (const step of undo.reverse()) {
          await step().catch(() => undefined);
        }
      }
      contents.dispose();
      await server.dispose();
    }
  } finally {
    if (!succeeded && createdDir) {
      await removeEmptyDirs(dirname(outFile), createdDir);
    }
  }
}

/**
 * The agent's run in `port`. Null when it failed before writing a cell
 * (reported; the caller takes back what the run created).
 */
async function run(
  command: Extract<CliCommand, { command: 'generate' }>,
  io: ICliIO,
  port: ServerNotebookPort,
  settings: ServerConnection.ISettings,
  attachments: IFileAttachment[],
  mcp: IExtraTools
): Promise<ExitCode | null> {
  const { session, model } = sessionFor(
    command.common,
    port,
    settings,
    io.err,
    mcp
  );
  const stopPrinting = printTranscript(session, io.err);
  const timer = setInterval(
    () =>
      void port.save().catch(error => {
        // Changed on disk: stop saving over it; the end writes a copy.
        if (error instanceof NotebookConflictError) {
          clearInterval(timer);
        }
      }),
    SAVE_EVERY_MS
  );
  const endInterrupt = stopRunOnInterrupt(() => session.stop());
  try {
    const result = await session.generate(
      command.prompt,
      { model: () => model, notebook: port },
      { attachments }
    );
    clearInterval(timer);
    stopPrinting();
    const error = session.getSnapshot().error;
    if ((!result || error) && (await port.getCells()).length === 0) {
      io.err(errorMessage(error));
      io.err(
        `notebook-agent: nothing was written; ${command.out} was not created.`
      );
      return null;
    }
    const saved = await saveOrCopy(port);
    if (saved.copy) {
      io.err(
        conflictMessage(command.out, shown(command.out, saved.path, port))
      );
      return 1;
    }
    if (!result || error) {
      io.err(errorMessage(error));
      return 1;
    }
    io.out(
      result.status === 'stopped'
        ? `${command.out}: stopped (it keeps what the agent did so far; not verified)`
        : `${command.out}: ${result.status}`
    );
    return result.status === 'verified'
      ? 0
      : result.status === 'unverified'
        ? 2
        : 1;
  } finally {
    clearInterval(timer);
    endInterrupt();
  }
}

/** Create the folder of `file`; the first folder created, if any. */
async function makeDir(file: string): Promise<string | undefined> {
  try {
    return await mkdir(dirname(file), { recursive: true });
  } catch (error) {
    throw new CliError(
      `cannot create the folder for ${file}: ${(error as Error).message}`
    );
  }
}

/** Remove `dir` and its parents up to `top` (created by the run), while they are empty. */
async function removeEmptyDirs(dir: string, top: string): Promise<void> {
  for (let current = dir; current.startsWith(top); current = dirname(current)) {
    try {
      await rmdir(current);
    } catch {
      return;
    }
    if (current === top) {
      return;
    }
  }
}

function refuseToReplace(out: string, io: ICliIO): ExitCode {
  io.err(
    `notebook-agent: ${out} exists; pass --force to replace it, or choose another --out.`
  );
  return 1;
}

async function onDisk(file: string): Promise<boolean> {
  return (await lstat(file).catch(() => null)) !== null;
}

function serverDir(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash > 0 ? path.slice(0, slash) : '';
}

/** The file at `path` as bytes (whatever it holds), to put back; null when there is none. */
async function existing(
  contents: ContentsManager,
  path: string
): Promise<Partial<Contents.IModel> | null> {
  try {
    const model = await contents.get(path, {
      type: 'file',
      format: 'base64',
      content: true
    });
    return { type: 'file', format: 'base64', content: model.content };
  } catch {
    return null;
  }
}
