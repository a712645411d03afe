/**
 * The main plugin: wires the session, the sidebar, the commands and the
 * settings together. The work itself lives in the agent core and the port.
 */
import {
  ILabShell,
  type JupyterFrontEnd,
  type JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { ICommandPalette } from '@jupyterlab/apputils';
import { PageConfig } from '@jupyterlab/coreutils';
import { IDefaultFileBrowser } from '@jupyterlab/filebrowser';
import { ILauncher } from '@jupyterlab/launcher';
import { INotebookTracker, type NotebookPanel } from '@jupyterlab/notebook';
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { ISettingRegistry } from '@jupyterlab/settingregistry';
import { ITranslator, nullTranslator } from '@jupyterlab/translation';
import { ModelClientCache } from '../agent/model/client-cache';
import { AgentSession } from '../agent/session';
import { agentTools } from '../agent/tools/all-tools';
import { McpToolSource } from '../agent/tools/mcp-tools';
import { ToolRegistry } from '../agent/tools/registry';
import { smallModelTools } from '../agent/tools/small-model-tools';
import { AttachmentStore } from '../components/attachment-store';
import { ServerMcpClient } from '../server-api/mcp-client';
import { TRANSLATION_DOMAIN } from '../components/trans';
import { AgentSidebar, SIDEBAR_ID } from '../widgets/agent-sidebar';
import { registerAgentCommands } from './agent-commands';
import { AgentConfig } from './agent-config';
import { setupAttachments } from './attachments-glue';
import { insertCodeCell, showCell } from './cell-actions';
import { persistChats } from './chat-persistence';
import { ChatStoreClient } from './chat-store';
import { acceptContentsDrops } from './contents-drop';
import { canvasImageResizer } from './image-resizer';
import { askForProviderKey } from './key-dialog';
import { notebookMentions } from './mention-source';
import { localModelStatus } from './local-model-status';
import { createModelClient } from './model-factory';
import { localServerLooker } from './local-servers';
import { LiveNotebookPort } from './notebook-port';
import { chatPanel, notebookStatus } from './notebook-status';
import { autosaveSetting, saveAgentEdits } from './save-agent-edits';
import { fetchServerStatus } from './server-status';
import {
  PLUGIN_ID,
  readSettings,
  resolveEndpointMode,
  runSettings,
  type IAgentSettings
} from './settings';
import { SidebarConfiguration } from './sidebar-configuration';
import { stopWhenClosed } from './stop-on-close';

/** Notebook Agent's main plugin. */
export const agentPlugin: JupyterFrontEndPlugin<void> = {
  id: PLUGIN_ID,
  description: 'An agent that writes and runs cells in the active notebook.',
  autoStart: true,
  requires: [INotebookTracker, IRenderMimeRegistry],
  optional: [
    ISettingRegistry,
    ICommandPalette,
    ILabShell,
    ILauncher,
    IDefaultFileBrowser,
    ITranslator
  ],
  activate: (
    app: JupyterFrontEnd,
    tracker: INotebookTracker,
    rendermime: IRenderMimeRegistry,
    settingRegistry: ISettingRegistry | null,
    palette: ICommandPalette | null,
    _labShell: ILabShell | null,
    launcher: ILauncher | null,
    fileBrowser: IDefaultFileBrowser | null,
    translator: ITranslator | null
  ) => {
    const trans = (translator ?? nullTranslator).load(TRANSLATION_DOMAIN);
    let settingsHandle: ISettingRegistry.ISettings | null = null;
    const serverSettings = app.serviceManager.serverSettings;
    const ports = new WeakMap<NotebookPanel, LiveNotebookPort>();
    const portFor = (panel: NotebookPanel | null) => {
      if (!panel) {
        return null;
      }
      let port = ports.get(panel);
      if (!port) {
        port = new LiveNotebookPort(panel, app.serviceManager.contents);
        ports.set(panel, port);
      }
      return port;
    };

    // A port per notebook from the moment it opens, so it sees which cells
    // the user runs (to tell the agent which cells are stale).
    tracker.widgetAdded.connect((_, panel) => void portFor(panel));
    tracker.forEach(panel => void portFor(panel));
    if (String(PageConfig.getOption('notebookAgentTestHooks')) === 'true') {
      void import('./test-hooks').then(hooks =>
        hooks.installTestHooks(app, tracker, portFor)
      );
    }

    // The session reads the configuration at each run; the configuration
    // reads the chat's own provider/model choice from the session.
    // eslint-disable-next-line prefer-const
    let session: AgentSession;
    const config = new AgentConfig(() => session.getSnapshot().choice);
    // MCP servers run on the Jupyter server; the first listing starts them.
    const mcp = new McpToolSource(new ServerMcpClient(serverSettings));
    void mcp.refresh();
    session = new AgentSession({
      tools: new ToolRegistry(agentTools()),
      extraTools: () => mcp.toolSet(),
      smallTools: new ToolRegistry(smallModelTools()),
      profile: () => (config.local ? 'small' : 'standard'),
      parallelToolCalls: () =>
        !config.local && config.capabilities().parallelToolCalls,
      maxSteps: () => config.settings.maxSteps,
      approvalMode: () => config.settings.approvalMode,
      runSettings: () => runSettings(config.settings),
      contextTokens: () => config.contextTokens(),
      toolProtocol: () => config.toolProtocol(),
      vision: () => ({
        enabled: config.visionEnabled(),
        maxSide: config.settings.maxImageSide,
        resizer: canvasImageResizer
      })
    });

    // One client per settings (not per task): what a client learns about
    // its server (e.g. that it rejects stream_options) lasts.
    const models = new ModelClientCache((settings: IAgentSettings) =>
      createModelClient(settings, serverSettings)
    );
    const targetFor = (panel: NotebookPanel | null) => {
      stopWhenClosed(session, panel, trans);
      return {
        // The chat's provider/model choice is among the server's providers:
        // it applies to proxy mode only.
        model: () =>
          models.get(
            config.settings.endpointMode === 'proxy'
              ? { ...config.settings, ...config.chatChoice() }
              : config.settings
          ),
        notebook: portFor(panel)
      };
    };

    // A reload mid-run loses nothing the agent did (save-agent-edits.ts).
    saveAgentEdits(session, tracker, autosaveSetting(settingRegistry), trans);

    const attachments = new AttachmentStore();
    const showSidebar = () => app.shell.activateById(SIDEBAR_ID);
    const attachFiles = setupAttachments(
      app,
      tracker,
      session,
      attachments,
      showSidebar,
      trans
    );
    const shown = new SidebarConfiguration(config, serverSettings, trans);
    const sidebar = new AgentSidebar({
      session,
      rendermime,
      config: shown.store,
      attachments,
      mentions: notebookMentions(tracker),
      localModel: localModelStatus,
      notebook: notebookStatus(session, tracker, serverSettings),
      mcp,
      trans,
      history: persistChats(
        session,
        tracker,
        new ChatStoreClient(serverSettings)
      ),
      actions: {
        send: prompt => {
          const run = session.send(
            prompt,
            targetFor(tracker.currentWidget),
            attachments.getSnapshot()
          );
          if (run) {
            attachments.clear();
          }
          return run !== null;
        },
        retry: () =>
          void session.retry(
            targetFor(
              tracker.find(p => p.context.path === session.notebookPath) ??
                tracker.currentWidget
            )
          ),
        showCell: cellId => showCell(app, tracker, cellId),
        interruptKernel: () =>
          void chatPanel(session, tracker)
            ?.sessionContext.session?.kernel?.interrupt()
            .catch(() => undefined),
        showNotebook: () => {
          const panel = chatPanel(session, tracker);
          if (panel) {
            app.shell.activateById(panel.id);
          }
        },
        insertCode: code => insertCodeCell(app, tracker, session, code, trans),
        attachFiles: attachFiles.files,
        setApprovalMode: mode => void settingsHandle?.set('approvalMode', mode),
        // A model name belongs to its provider: switching provider starts
        // from its default. The chat switches at once; the settings
        // remember the choice for new chats.
        setProvider: name => {
          session.setModelChoice({ provider: name, model: '' });
          void settingsHandle
            ?.set('model', '')
            .then(() => settingsHandle?.set('provider', name));
        },
        setModel: model => {
          session.setModelChoice({ ...config.chatChoice(), model });
          void settingsHandle?.set('model', model);
        },
        setKey: () => {
          const provider = config.selectedProvider();
          if (provider) {
            void askForProviderKey(
              provider,
              serverSettings,
              session,
              trans
            ).then(refreshStatus);
          }
        },
        openSettings: () =>
          void app.commands.execute('settingeditor:open', {
            query: 'Notebook Agent'
          }),
        lookForLocalServers: () => void lookForLocalServers()
      }
    });
    app.shell.add(sidebar, 'right', { rank: 900 });
    acceptContentsDrops(sidebar.node, attachFiles.paths);

    const refreshStatus = () =>
      fetchServerStatus(serverSettings).then(status => {
        config.serverStatus = status;
        config.settings = resolveEndpointMode(config.settings, status);
        shown.refresh();
      });
    void refreshStatus();
    // Model servers on the Jupyter server's machine (when none is configured).
    const lookForLocalServers = localServerLooker(
      serverSettings,
      refreshStatus
    );
    // The pickers show the chat's choice: refresh when it changes (New chat resets it).
    let shownChoice = session.getSnapshot().choice;
    session.subscribe(() => {
      if (session.getSnapshot().choice !== shownChoice) {
        shownChoice = session.getSnapshot().choice;
        shown.refresh();
      }
    });
    if (settingRegistry) {
      void settingRegistry.load(PLUGIN_ID).then(loaded => {
        settingsHandle = loaded;
        const apply = () => {
          config.settings = resolveEndpointMode(
            readSettings(loaded),
            config.serverStatus
          );
          shown.refresh();
        };
        apply();
        loaded.changed.connect(apply);
      });
    }

    registerAgentCommands({
      app,
      tracker,
      session,
      sidebar,
      targetFor,
      showSidebar,
      fileBrowser,
      launcher,
      palette,
      trans
    });
  }
};
