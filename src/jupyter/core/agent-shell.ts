/**
 * The agent as JupyterLab holds it from start: the shell. The chat (its
 * state: the sidebar's, other extensions'), the configuration and the
 * model client it selects, the project rules, the MCP servers' listing,
 * the tools other extensions register, and the log of the cells' runs.
 * What runs a task (the loop, the tools, the live ports) is not here: the
 * runs part (../runs/runs-part.ts) loads with the first task
 * (./lazy-runs.ts), through the loader the core plugin hands in. The core plugin builds the shell and provides its
 * parts (./parts.ts).
 */
import type { JupyterFrontEnd } from '@jupyterlab/application';
import type { INotebookTracker } from '@jupyterlab/notebook';
import type { TranslationBundle } from '@jupyterlab/translation';
import { ChatSession } from '../../agent/session/chat-session';
import { McpListing } from '../../agent/tools/mcp-listing';
import { ToolQueue } from '../../agent/tools/tool-queue';
import { ServerMcpClient } from '../../server-api/mcp-client';
import { AgentConfiguration } from './agent-configuration';
import { RunLog } from '../live-port/run-log';
import { agentApi } from './agent-api';
import { LazyRuns } from './lazy-runs';
import type { IAgentCore } from './parts';
import type { IRunsPart, IRunsShell } from './runs-seam';
import { ProjectRulesStore } from './rules-store';

/** The shell, in the parts the plugins read, and the two the core plugin wires itself. */
export interface IAgentShell {
  /** The parts, for the plugins (IAgentCore). */
  core: IAgentCore;
  /** The chat's tasks (the test hooks reach the runs part through it). */
  runs: LazyRuns;
  /** The configuration (it follows the settings the core plugin hands it). */
  configuration: AgentConfiguration;
}

/** Build the shell of the agent in `app`. */
export function agentShell(
  app: JupyterFrontEnd,
  tracker: INotebookTracker,
  trans: TranslationBundle,
  /** Import and build the runs part (the core plugin's `import()`). */
  loadRuns: (shell: IRunsShell) => Promise<IRunsPart>
): IAgentShell {
  const { contents, serverSettings } = app.serviceManager;
  // From start, so the port a task builds later knows which cells the
  // user ran (and which changed since).
  const runLog = new RunLog();
  const chat = new ChatSession();
  // The configuration reads the chat's own provider/model choice.
  const configuration = new AgentConfiguration(
    serverSettings,
    () => chat.getSnapshot().choice
  );
  const { config } = configuration;
  const rules = new ProjectRulesStore(
    contents,
    serverSettings,
    () => config.settings.projectRules
  );
  // MCP servers run on the Jupyter server; the first listing starts them.
  const mcp = new McpListing(new ServerMcpClient(serverSettings));
  void mcp.refresh();
  const tools = new ToolQueue();
  const runs = new LazyRuns({
    session: chat,
    trans,
    currentModel: () => configuration.currentModel(),
    modelWait: configuration.modelWait,
    load: () =>
      loadRuns({
        chat,
        configuration,
        rules,
        mcp,
        tools,
        runLog,
        contents,
        trans
      })
  });
  // The pickers show the chat's choice: a new one (New chat resets it)
  // changes what the configuration resolves to.
  let choice = chat.getSnapshot().choice;
  chat.subscribe(() => {
    if (chat.getSnapshot().choice !== choice) {
      choice = chat.getSnapshot().choice;
      configuration.choiceChanged();
    }
  });
  const showActive = () =>
    rules.show(tracker.currentWidget?.context.path ?? null);
  tracker.currentChanged.connect(showActive);
  configuration.configChanged.connect(showActive);
  void configuration.refreshStatus();
  return {
    core: {
      runs,
      configuration,
      sources: { rules, mcp },
      api: agentApi(chat, configuration, tools)
    },
    runs,
    configuration
  };
}
