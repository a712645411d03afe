/**
 * The agent session of a command-line run: the sidebar's AgentSession with
 * the policies of a run nobody watches (everything runs, approvals answer
 * themselves), and the model client of the endpoint given.
 */
import { basename } from 'node:path';
import { ContentsManager, type ServerConnection } from '@jupyterlab/services';
import { rulesSummary } from '../../agent/context/project-rules';
import { capabilitiesFor } from '../../agent/model/capabilities';
import { smallModelTools } from '../../agent/tools/small-model-tools';
import { OpenAIChatClient } from '../../agent/model/openai-client';
import { AgentSession } from '../../agent/session';
import { agentTools } from '../../agent/tools/all-tools';
import { NO_EXTRA_TOOLS, type IExtraTools } from '../../agent/tools/mcp-tools';
import { ToolRegistry } from '../../agent/tools/registry';
import type { IAgentError } from '../../agent/types';
import { readProjectRules } from '../../server-api/project-rules';
import type { ICommonOptions } from './cli-args';
import { autoApprove } from './auto-approve';
import type { ServerNotebookPort } from '../server-port/server-port';

/**
 * A session and its model client for `port` on the server of `settings`;
 * `say` prints a line for the user (the project rules that apply); `mcp`:
 * the Jupyter server's MCP tools (cli-mcp.ts). Their calls are approved
 * like every other call of a run nobody watches (auto-approve.ts).
 */
export function sessionFor(
  common: ICommonOptions,
  port: ServerNotebookPort,
  settings: ServerConnection.ISettings,
  say: (line: string) => void,
  mcp: IExtraTools = NO_EXTRA_TOOLS
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
    extraTools: () => mcp,
    // Nobody is there to approve: the user asked for this run by running it.
    approvalMode: () => 'run-everything',
    maxSteps: () => common.maxSteps,
    contextTokens: () => caps.contextTokens,
    toolProtocol: () => caps.tools,
    profile: () => caps.profile,
    smallTools: new ToolRegistry(smallModelTools()),
    parallelToolCalls: () => caps.parallelToolCalls,
    runSettings: () => ({
      softTimeoutMs: 30_000,
      hardTimeoutMs: common.timeoutSeconds * 1000,
      allowDeleteAnyCell: false
    }),
    // The sidebar's rules, read the same way (src/server-api/project-rules.ts).
    projectRules: common.rules
      ? async notebookPath => {
          const contents = new ContentsManager({ serverSettings: settings });
          try {
            const rules = await readProjectRules(
              contents,
              settings,
              notebookPath
            );
            const summary = rulesSummary(rules);
            if (summary) {
              say(`Rules: ${summary}`);
            }
            return rules;
          } finally {
            contents.dispose();
          }
        }
      : undefined
  });
  // Nobody is there to answer an approval request either: without this, a
  // call that always asks (restart_kernel, installs during a fix) hung.
  autoApprove(session, { ownsKernel: () => port.ownsKernel });
  return { session, model };
}

/** Where a server path ends up for the user: beside the notebook they named. */
export function shown(
  notebook: string,
  serverPath: string,
  port: ServerNotebookPort
): string {
  return serverPath === port.path
    ? notebook
    : notebook.slice(0, notebook.length - basename(port.path).length) +
        basename(serverPath);
}

/** The message for a run that ended with `error` (or none at all). */
export function errorMessage(error: IAgentError | null): string {
  return error
    ? `notebook-agent: ${error.message}\n${error.hint}`
    : 'notebook-agent: the run did not complete.';
}
