/**
 * `notebook-agent mcp-worker`: runs outside agents' calls on notebooks that
 * no JupyterLab page has open, for the Jupyter server that started it
 * (outside_worker.py). One JSON line per call on stdin
 * (`{"id", "session", "client", "tool", "arguments"}`), one line per answer
 * on stdout (`{"id", "result"}`, an MCP tool result).
 *
 * The same tools as in the page (the outside catalogue), over the headless
 * port (ServerNotebookPort: the contents API and a kernel session of that
 * notebook), with a run's memory per session and notebook, so a stale cell
 * is refused as in the page. Nobody can approve here: a call that would ask
 * is not run, and the answer says to open the notebook in JupyterLab. The
 * notebook is saved after each call that changed it.
 */
import { createInterface } from 'node:readline';
import type { ServerConnection } from '@jupyterlab/services';
import { OUTSIDE_TOOLS } from '../../../agent/outside/catalogue';
import {
  mcpResult,
  textResult,
  type IMcpToolResult
} from '../../../agent/outside/mcp-result';
import type { ApprovalMode } from '../../../agent/loop/approval';
import { executeToolCall } from '../../../agent/loop/tool-step';
import { agentTools } from '../../../agent/tools/all-tools';
import { ToolRegistry } from '../../../agent/tools/registry';
import { RunState } from '../../../agent/tools/run-state';
import { ServerNotebookPort } from '../../server-port/server-port';

interface IWorkerCall {
  id: string;
  session: string;
  client: string;
  tool: string;
  arguments: Record<string, unknown>;
}

interface IOpenNotebook {
  port: ServerNotebookPort;
  state: RunState;
}

/** The mode calls run under here: edits and reads run, whatever would ask is refused. */
const MODE: ApprovalMode = 'ask-before-running';

/** Answer calls until the input ends; then close the notebooks (and the kernels this worker started). */
export async function runWorker(options: {
  settings: ServerConnection.ISettings;
  input: NodeJS.ReadableStream;
  out: (line: string) => void;
}): Promise<0> {
  const names = new Set(OUTSIDE_TOOLS.map(([name]) => name));
  const tools = new ToolRegistry(
    agentTools().filter(tool => names.has(tool.name))
  );
  const open = new Map<string, Promise<IOpenNotebook>>();
  const notebookOf = (session: string, path: string) => {
    const key = `${session}\n${path}`;
    let opened = open.get(key);
    if (!opened) {
      opened = ServerNotebookPort.open({
        serverSettings: options.settings,
        path
      }).then(port => ({ port, state: new RunState() }));
      opened.catch(() => open.delete(key));
      open.set(key, opened);
    }
    return opened;
  };
  const answer = async (call: IWorkerCall): Promise<IMcpToolResult> => {
    const path = String(call.arguments.notebook);
    let notebook: IOpenNotebook;
    try {
      notebook = await notebookOf(call.session, path);
    } catch (error) {
      return textResult(
        `${path} could not be opened on the server: ${(error as Error).message}`,
        true
      );
    }
    const args = { ...call.arguments };
    delete args.notebook;
    let asked = false;
    const result = await executeToolCall(
      {
        id: `outside-${call.id}`,
        name: call.tool,
        arguments: JSON.stringify(args)
      },
      {
        config: { tools, approvalMode: MODE },
        turn: {
          notebook: notebook.port,
          signal: new AbortController().signal
        },
        state: notebook.state
      },
      async () => {
        asked = true;
        return { approved: false };
      }
    );
    if (asked) {
      return textResult(
        `This call needs the user's approval, and ${path} is not open in JupyterLab, where they would give it: ` +
          'nothing was done. Ask the user to open the notebook in JupyterLab, then call again.',
        true
      );
    }
    const changed = call.tool !== 'read_notebook' && call.tool !== 'read_cell';
    if (changed) {
      try {
        await notebook.port.save();
      } catch (error) {
        // Changed on disk meanwhile (the user, another program): nothing of theirs is replaced.
        open.delete(`${call.session}\n${path}`);
        await notebook.port.close().catch(() => undefined);
        return textResult(
          `${path} was not saved: ${(error as Error).message} Read the notebook again, then redo the change.`,
          true
        );
      }
    }
    const mcp = mcpResult(result);
    mcp.content[0] = {
      type: 'text',
      text: `[${path} is not open in JupyterLab: worked on through the server]\n${result.output}`
    };
    return mcp;
  };
  const pending = new Set<Promise<void>>();
  const lines = createInterface({ input: options.input, crlfDelay: Infinity });
  for await (const line of lines) {
    let call: IWorkerCall | { type: 'ended'; session: string };
    try {
      call = JSON.parse(line) as IWorkerCall;
    } catch {
      continue;
    }
    if ('type' in call) {
      // The session ended: close its notebooks (and the kernels started for them).
      for (const [key, opened] of [...open]) {
        if (key.startsWith(`${call.session}\n`)) {
          open.delete(key);
          void opened.then(n => n.port.close()).catch(() => undefined);
        }
      }
      continue;
    }
    const asked = call;
    const done = answer(asked)
      .catch((error: unknown) =>
        textResult(`The call failed: ${(error as Error).message}`, true)
      )
      .then(result => options.out(JSON.stringify({ id: asked.id, result })))
      .finally(() => pending.delete(done));
    pending.add(done);
  }
  await Promise.all(pending);
  for (const opened of open.values()) {
    await opened.then(n => n.port.close()).catch(() => undefined);
  }
  return 0;
}
