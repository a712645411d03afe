/**
 * The agent as JupyterLab holds it: one chat session, its tools, the
 * configuration (settings, the server's status, the chat's model choice),
 * the model clients, a port per notebook and the project rules. The
 * plugins (src/jupyter/plugins/) build one and hand its parts to the
 * sidebar, the commands and other extensions (INotebookAgent).
 */
import type { JupyterFrontEnd } from '@jupyterlab/application';
import type { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import type { ISettingRegistry } from '@jupyterlab/settingregistry';
import type { TranslationBundle } from '@jupyterlab/translation';
import { DisposableDelegate } from '@lumino/disposable';
import { Signal, type ISignal } from '@lumino/signaling';
import { ModelClientCache } from '../../agent/model/client-cache';
import type { IModelClient } from '../../agent/model/types';
import { AgentSession, type IRunTarget } from '../../agent/session';
import { agentTools } from '../../agent/tools/all-tools';
import { McpToolSource } from '../../agent/tools/mcp-tools';
import { externalTool } from '../../agent/tools/external-tool';
import { ToolRegistry } from '../../agent/tools/registry';
import { ValueStore, type IReadable } from '../../agent/value-store';
import { smallModelTools } from '../../agent/tools/small-model-tools';
import { ServerMcpClient } from '../../server-api/mcp-client';
import type { INotebookAgent } from '../../tokens';
import { AgentConfig } from '../config/agent-config';
import { canvasImageResizer } from './image-resizer';
import { localServerLooker } from '../config/local-servers';
import { createModelClient } from './model-factory';
import { LiveNotebookPort } from '../live-port/notebook-port';
import { ProjectRulesStore } from './rules-store';
import { fetchServerStatus } from '../config/server-status';
import {
  PLUGIN_ID,
  readSettings,
  resolveEndpointMode,
  runSettings,
  type IAgentSettings
} from '../config/settings';
import { stopWhenClosed } from '../live-port/stop-on-close';
import type { IAgentCore } from './parts';

/** The agent and what it runs with, in JupyterLab. */
export class AgentHost {
  /** The chat session of the sidebar. */
  readonly session: AgentSession;
  /** The settings, the server's status and the chat's choice, resolved. */
  readonly config: AgentConfig;
  /** The tools of the standard profile; other extensions add theirs here. */
  readonly tools = new ToolRegistry(agentTools());
  /** The project rules of the active notebook (and of each run). */
  readonly rules: ProjectRulesStore;
  /** The Jupyter server's MCP servers and their tools (they run there). */
  readonly mcp: McpToolSource;

  constructor(
    private readonly _app: JupyterFrontEnd,
    tracker: INotebookTracker,
    readonly trans: TranslationBundle
  ) {
    const serverSettings = _app.serviceManager.serverSettings;
    // A port per notebook from the moment it opens, so it sees which cells
    // the user runs (to tell the agent which cells are stale).
    tracker.widgetAdded.connect((_, panel) => void this.portFor(panel));
    tracker.forEach(panel => void this.portFor(panel));

    // The session reads the configuration at each run; the configuration
    // reads the chat's own provider/model choice from the session.
    const config = new AgentConfig(() => this.session.getSnapshot().choice);
    this.config = config;
    this.rules = new ProjectRulesStore(
      _app.serviceManager.contents,
      serverSettings,
      () => config.settings.projectRules
    );
    // MCP servers run on the Jupyter server; the first listing starts them.
    this.mcp = new McpToolSource(new ServerMcpClient(serverSettings));
    void this.mcp.refresh();
    this.session = new AgentSession({
      tools: this.tools,
      extraTools: () => this.mcp.toolSet(),
      smallTools: new ToolRegistry(smallModelTools()),
      profile: () =>
        config.local || config.capabilities().profile === 'small'
          ? 'small'
          : 'standard',
      parallelToolCalls: () =>
        !config.local && config.capabilities().parallelToolCalls,
      maxSteps: () => config.settings.maxSteps,
      approvalMode: () => config.settings.approvalMode,
      runSettings: () => runSettings(config.settings),
      contextTokens: () => config.contextTokens(),
      toolProtocol: () => config.toolProtocol(),
      toolProtocolChosen: () => config.settings.toolCalling !== 'auto',
      vision: () => ({
        enabled: config.visionEnabled(),
        maxSide: config.settings.maxImageSide,
        resizer: canvasImageResizer
      }),
      projectRules: path => this.rules.read(path)
    });
    // One client per settings (not per task): what a client learns about
    // its server (e.g. that it rejects stream_options) lasts.
    this._models = new ModelClientCache((settings: IAgentSettings) =>
      createModelClient(settings, serverSettings, since =>
        this._modelWait.set(since)
      )
    );
    this.lookForLocalServers = localServerLooker(serverSettings, () =>
      this.refreshStatus()
    );
    // The pickers show the chat's choice: a new one (New chat resets it)
    // changes what the configuration resolves to.
    let choice = this.session.getSnapshot().choice;
    this.session.subscribe(() => {
      if (this.session.getSnapshot().choice !== choice) {
        choice = this.session.getSnapshot().choice;
        this._configChanged.emit();
      }
    });
    const showActive = () =>
      this.rules.show(tracker.currentWidget?.context.path ?? null);
    tracker.currentChanged.connect(showActive);
    this.configChanged.connect(showActive);
    void this.refreshStatus();
  }

  /**
   * Since when (Date.now()) a model server has read the prompt of the
   * chat's request without answering yet; null when none is waiting.
   */
  get modelWait(): IReadable<number | null> {
    return this._modelWait;
  }

  /** Emitted when the settings, the server's status or the chat's model choice change. */
  get configChanged(): ISignal<this, void> {
    return this._configChanged;
  }

  /** Ask the server to look again for model servers on its machine. */
  readonly lookForLocalServers: () => Promise<void>;

  /** The live port of `panel` (one per notebook). */
  portFor(panel: NotebookPanel | null): LiveNotebookPort | null {
    if (!panel) {
      return null;
    }
    let port = this._ports.get(panel);
    if (!port) {
      port = new LiveNotebookPort(panel, this._app.serviceManager.contents);
      // The card names the cell as it starts; the notebook is saved with it.
      port.cellStarting.connect((_, cellId) =>
        this.session.cellStarted(cellId)
      );
      this._ports.set(panel, port);
    }
    return port;
  }

  /** The model and notebook of a run on `panel`. */
  targetFor(panel: NotebookPanel | null): IRunTarget {
    stopWhenClosed(this.session, panel, this.trans);
    return { model: () => this.currentModel(), notebook: this.portFor(panel) };
  }

  /** The model client the chat uses now (throws when none is configured). */
  currentModel(): IModelClient {
    const settings = this.config.settings;
    // The chat's provider/model choice is among the server's providers: it
    // applies to proxy mode only.
    return this._models.get(
      settings.endpointMode === 'proxy'
        ? { ...settings, ...this.config.chatChoice() }
        : settings
    );
  }

  /** Ask the server for its endpoints again. */
  async refreshStatus(): Promise<void> {
    const status = await fetchServerStatus(
      this._app.serviceManager.serverSettings
    );
    this.config.serverStatus = status;
    this.config.settings = resolveEndpointMode(this.config.settings, status);
    this._configChanged.emit();
  }

  /** Follow the user's settings (the sidebar's choices are written there). */
  loadSettings(registry: ISettingRegistry): void {
    void registry.load(PLUGIN_ID).then(loaded => {
      this._settings = loaded;
      const apply = () => {
        this.config.settings = resolveEndpointMode(
          readSettings(loaded),
          this.config.serverStatus
        );
        this._configChanged.emit();
      };
      apply();
      loaded.changed.connect(apply);
    });
  }

  /** Change one setting (nothing happens before the settings have loaded). */
  async setSetting(key: keyof IAgentSettings, value: string): Promise<void> {
    await this._settings?.set(key, value);
  }

  /**
   * The host's parts, each as the narrow interface a plugin reads
   * (./parts.ts): the core plugin provides these, not the host.
   */
  parts(): IAgentCore {
    return { runs: this, configuration: this, sources: this, api: this.api };
  }

  /** The public face of the agent, for other extensions (INotebookAgent). */
  get api(): INotebookAgent {
    this._api ??= {
      registerTool: tool => {
        const registration = this.tools.register(
          externalTool(tool),
          'another extension'
        );
        return new DisposableDelegate(() => registration.dispose());
      },
      session: this.session,
      models: {
        current: () => this.currentModel(),
        choice: () => this.config.chatChoice(),
        providers: () =>
          this.config.serverStatus.kind === 'configured'
            ? this.config.serverStatus.providers
            : []
      }
    };
    return this._api;
  }

  private _api: INotebookAgent | null = null;
  private readonly _modelWait = new ValueStore<number | null>(null);
  private readonly _models: ModelClientCache<IAgentSettings>;
  private readonly _ports = new WeakMap<NotebookPanel, LiveNotebookPort>();
  private _settings: ISettingRegistry.ISettings | null = null;
  private readonly _configChanged = new Signal<this, void>(this);
}
