/**
 * The main plugin: wires the session, the sidebar, the commands and the
 * settings together. The work itself lives in the agent core and the port.
 */
import {
  ILabShell,
  type JupyterFrontEnd,
  type JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { ICommandPalette, InputDialog } from '@jupyterlab/apputils';
import { IDefaultFileBrowser } from '@jupyterlab/filebrowser';
import { ILauncher } from '@jupyterlab/launcher';
import { INotebookTracker, type NotebookPanel } from '@jupyterlab/notebook';
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { ISettingRegistry } from '@jupyterlab/settingregistry';
import { ITranslator, nullTranslator } from '@jupyterlab/translation';
import { capabilitiesFor } from '../agent/model/capabilities';
import {
  findLocalModel,
  localToolProtocol,
  resolveCatalogue
} from '../agent/model/local/catalogue';
import { smallModelTools } from '../agent/tools/small-model-tools';
import { AgentSession } from '../agent/session';
import { TRANSLATION_DOMAIN } from '../components/trans';
import { agentTools } from '../agent/tools/all-tools';
import { ToolRegistry } from '../agent/tools/registry';
import { AgentSidebar, SIDEBAR_ID } from '../widgets/agent-sidebar';
import { agentIcon } from '../widgets/icon';
import { AttachmentStore } from '../components/attachment-store';
import { setupAttachments } from './attachments-glue';
import { insertCodeCell, showCell } from './cell-actions';
import { acceptContentsDrops } from './contents-drop';
import { persistChats } from './chat-persistence';
import { notebookMentions } from './mention-source';
import { ChatStoreClient } from './chat-store';
import { CommandIDs } from './commands';
import { installFixButtons } from './fix-button';
import { stopWhenClosed } from './stop-on-close';
import {
  LocalModelCommandIDs,
  registerLocalModelCommands
} from './local-model-commands';
import { canvasImageResizer } from './image-resizer';
import { createModelClient } from './model-factory';
import { LiveNotebookPort } from './notebook-port';
import {
  fetchProviderModels,
  fetchServerStatus,
  storeProviderKey,
  type IProviderInfo,
  type ServerStatus
} from './server-status';
import {
  DEFAULT_SETTINGS,
  PLUGIN_ID,
  readSettings,
  resolveEndpointMode,
  runSettings,
  type IAgentSettings
} from './settings';

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
    let settings: IAgentSettings = { ...DEFAULT_SETTINGS };
    let settingsHandle: ISettingRegistry.ISettings | null = null;
    let serverStatus: ServerStatus = { kind: 'unknown' };
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

    // Assigned once, below; the closures here read it only after that.
    // eslint-disable-next-line prefer-const
    let session: AgentSession;
    /** This chat's provider and model, else the settings' (the defaults for new chats). */
    const chatChoice = () =>
      session.getSnapshot().choice ?? {
        provider: settings.provider,
        model: settings.model
      };
    /** The provider requests go to: the chat's, else the server's default. */
    const selectedProvider = (): IProviderInfo | null => {
      if (serverStatus.kind !== 'configured') {
        return null;
      }
      const { providers, defaultProvider } = serverStatus;
      return (
        providers.find(p => p.name === chatChoice().provider) ??
        providers.find(p => p.name === defaultProvider) ??
        null
      );
    };
    /** The model requests will name: the setting, else the provider's or server's default. */
    const modelName = () =>
      chatChoice().model ||
      selectedProvider()?.defaultModel ||
      (serverStatus.kind === 'configured' ? (serverStatus.model ?? '') : '');

    const local = () => settings.endpointMode === 'local';
    /** The model's capabilities: the built-in table, corrected by the settings. */
    const capabilities = () =>
      capabilitiesFor(modelName(), settings.modelCapabilities);
    /** The setting, unless a capability override says what this model can do. */
    const visionEnabled = () => {
      const stated = capabilities().vision;
      return stated !== capabilitiesFor(modelName()).vision
        ? stated
        : settings.vision;
    };
    /** The local model chosen in the settings (null when not in local mode). */
    const localEntry = () =>
      local()
        ? (findLocalModel(
            resolveCatalogue(settings.localModels).models,
            settings.localModel
          ) ?? null)
        : null;
    /** A local model without tool-call markers writes code blocks instead. */
    const localProtocol = () => {
      const entry = localEntry();
      return entry ? localToolProtocol(entry) : 'native';
    };
    session = new AgentSession({
      tools: new ToolRegistry(agentTools()),
      smallTools: new ToolRegistry(smallModelTools()),
      profile: () => (local() ? 'small' : 'standard'),
      parallelToolCalls: () => !local() && capabilities().parallelToolCalls,
      maxSteps: () => settings.maxSteps,
      approvalMode: () => settings.approvalMode,
      runSettings: () => runSettings(settings),
      contextTokens: () =>
        settings.contextWindowTokens ||
        localEntry()?.contextTokens ||
        capabilities().contextTokens,
      toolProtocol: () =>
        settings.toolCalling !== 'auto'
          ? settings.toolCalling
          : local()
            ? localProtocol()
            : capabilities().tools,
      vision: () => ({
        enabled: visionEnabled(),
        maxSide: settings.maxImageSide,
        resizer: canvasImageResizer
      })
    });

    const targetFor = (panel: NotebookPanel | null) => {
      stopWhenClosed(session, panel, trans);
      return {
        // The chat's provider/model choice is among the server's providers:
        // it applies to proxy mode only.
        model: () =>
          createModelClient(
            settings.endpointMode === 'proxy'
              ? { ...settings, ...chatChoice() }
              : settings,
            serverSettings
          ),
        notebook: portFor(panel)
      };
    };

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
    const sidebar = new AgentSidebar({
      session,
      rendermime,
      attachments,
      onAttachFiles: attachFiles.files,
      mentions: notebookMentions(tracker),
      trans,
      onRetry: () =>
        void session.retry(
          targetFor(
            tracker.find(p => p.context.path === session.notebookPath) ??
              tracker.currentWidget
          )
        ),
      onOpenSettings: () =>
        void app.commands.execute('settingeditor:open', {
          query: 'Notebook Agent'
        }),
      history: persistChats(
        session,
        tracker,
        new ChatStoreClient(serverSettings)
      ),
      onModeChange: mode => void settingsHandle?.set('approvalMode', mode),
      // A model name belongs to its provider: switching provider starts from its default.
      // The chat switches at once; the settings remember it for new chats.
      // A model name belongs to its provider: switching provider starts from its default.
      onProviderChange: name => {
        session.setModelChoice({ provider: name, model: '' });
        void settingsHandle
          ?.set('model', '')
          .then(() => settingsHandle?.set('provider', name));
      },
      onModelChange: model => {
        session.setModelChoice({ ...chatChoice(), model });
        void settingsHandle?.set('model', model);
      },
      onSetKey: () => void askForKey(),
      onSend: prompt => {
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
      onShowCell: cellId => showCell(app, tracker, cellId),
      onInsertCode: code => insertCodeCell(app, tracker, session, code, trans)
    });
    app.shell.add(sidebar, 'right', { rank: 900 });
    acceptContentsDrops(sidebar.node, attachFiles.paths);

    /** Each provider's models, from its `/models` (or its profile). */
    const providerModels = new Map<string, string[]>();
    const refreshConfiguration = () => {
      const provider = selectedProvider();
      if (provider && !providerModels.has(provider.name)) {
        // Ask the endpoint once which models it has; the picker appears when it answers.
        providerModels.set(provider.name, provider.models);
        void fetchProviderModels(serverSettings, provider.name).then(models => {
          if (models.length) {
            providerModels.set(provider.name, models);
            refreshConfiguration();
          }
        });
      }
      const model =
        settings.endpointMode === 'direct'
          ? settings.model ||
            settings.azureDeployment ||
            trans.__('no model set')
          : local()
            ? trans.__(
                '%1 (in this browser)',
                localEntry()?.id ?? settings.localModel
              )
            : modelName() ||
              (serverStatus.kind === 'configured'
                ? trans.__('server default')
                : '');
      sidebar.setProviders(
        settings.endpointMode === 'proxy' &&
          serverStatus.kind === 'configured' &&
          provider
          ? {
              names: serverStatus.providers.map(p => p.name),
              selected: provider.name,
              models: providerModels.get(provider.name) ?? provider.models,
              model: modelName(),
              hasKey: provider.hasKey,
              canStoreKey: serverStatus.allowUserKeys
            }
          : null
      );
      sidebar.setConfiguration(
        serverStatus,
        settings.endpointMode,
        model,
        settings.approvalMode,
        settings.endpointMode === 'direct'
          ? { baseUrl: settings.baseUrl, hasKey: settings.apiKey !== '' }
          : null
      );
    };
    const refreshStatus = () =>
      fetchServerStatus(serverSettings).then(status => {
        serverStatus = status;
        settings = resolveEndpointMode(settings, status);
        refreshConfiguration();
      });
    void refreshStatus();
    // The pickers show the chat's choice: refresh when it changes (New chat resets it).
    let shownChoice = session.getSnapshot().choice;
    session.subscribe(() => {
      if (session.getSnapshot().choice !== shownChoice) {
        shownChoice = session.getSnapshot().choice;
        refreshConfiguration();
      }
    });

    /** Ask for the selected provider's key and hand it to the server. */
    const askForKey = async () => {
      const provider = selectedProvider();
      if (!provider) {
        return;
      }
      const answer = await InputDialog.getPassword({
        title: trans.__('API key for %1', provider.name),
        label: trans.__(
          'Stored on the Jupyter server (readable only by you), never in the browser or the notebook.'
        ),
        okLabel: trans.__('OK'),
        cancelLabel: trans.__('Cancel')
      });
      if (!answer.button.accept || !answer.value) {
        return;
      }
      try {
        await storeProviderKey(
          serverSettings,
          provider.name,
          answer.value,
          trans
        );
        session.reportError(null);
      } catch (error) {
        session.reportError({
          kind: 'forbidden',
          message: (error as Error).message,
          hint: trans.__(
            'Ask the server’s admin to configure the key for this provider.'
          )
        });
      }
      await refreshStatus();
    };
    if (settingRegistry) {
      void settingRegistry.load(PLUGIN_ID).then(loaded => {
        settingsHandle = loaded;
        const apply = () => {
          settings = resolveEndpointMode(readSettings(loaded), serverStatus);
          refreshConfiguration();
        };
        apply();
        loaded.changed.connect(apply);
      });
    }

    app.commands.addCommand(CommandIDs.open, {
      label: trans.__('Open Notebook Agent'),
      icon: agentIcon,
      execute: () => {
        app.shell.activateById(sidebar.id);
        sidebar.focusPrompt();
      }
    });
    app.commands.addCommand(CommandIDs.stop, {
      label: trans.__('Stop Notebook Agent'),
      isEnabled: () => session.getSnapshot().status === 'running',
      execute: () => session.stop()
    });
    app.commands.addCommand(CommandIDs.newChat, {
      label: trans.__('New Notebook Agent Chat'),
      execute: () => session.newChat()
    });
    app.commands.addCommand(CommandIDs.generateNotebook, {
      label: args =>
        args.isLauncher
          ? trans.__('Generate with Agent')
          : args.isMenu
            ? trans.__('Notebook with Agent…')
            : trans.__('Generate Notebook with Notebook Agent…'),
      caption: trans.__(
        'Describe an analysis; the agent builds, runs and verifies a new notebook.'
      ),
      icon: agentIcon,
      // The dialog and its workflow load on first use, not at start-up.
      execute: async args =>
        (await import('./generate-command')).generateNotebookCommand(
          {
            app,
            session,
            targetFor,
            directory: () => fileBrowser?.model.path ?? '',
            showSidebar,
            trans
          },
          args
        )
    });
    /** Fix a cell of a notebook (the active one by default). */
    const fixCell = (panel: NotebookPanel, cellId: string) => {
      showSidebar();
      if (session.getSnapshot().status === 'running') {
        session.reportError({
          kind: 'unknown',
          message: trans.__('Notebook Agent is busy with another task.'),
          hint: trans.__(
            'Wait for it to finish, or press Stop, then ask for the fix again.'
          )
        });
        return;
      }
      void session.fixCell(cellId, targetFor(panel));
    };
    app.commands.addCommand(CommandIDs.fixCell, {
      label: trans.__('Fix This Cell with Notebook Agent'),
      caption: trans.__(
        'The agent edits the cell (or an earlier one), reruns it until it works, and shows you the diff.'
      ),
      icon: agentIcon,
      isEnabled: () =>
        tracker.activeCell?.model.type === 'code' &&
        session.getSnapshot().status !== 'running',
      execute: args => {
        const panel = tracker.currentWidget;
        const cellId =
          typeof args.cellId === 'string'
            ? args.cellId
            : tracker.activeCell?.model.id;
        if (panel && cellId) {
          fixCell(panel, cellId);
        }
      }
    });
    installFixButtons(tracker, fixCell, trans);
    registerLocalModelCommands(app.commands, trans);
    launcher?.add({
      command: CommandIDs.generateNotebook,
      args: { isLauncher: true },
      category: 'Notebook',
      rank: 10,
      // Cards in the Notebook section show a kernel-style image, not the command's icon.
      kernelIconUrl: `data:image/svg+xml;base64,${btoa(agentIcon.svgstr)}`
    });
    if (palette) {
      for (const command of [
        CommandIDs.open,
        CommandIDs.newChat,
        CommandIDs.stop,
        CommandIDs.generateNotebook,
        CommandIDs.fixCell,
        CommandIDs.addCellsToChat,
        LocalModelCommandIDs.clearCache
      ]) {
        palette.addItem({ command, category: trans.__('Notebook Agent') });
      }
    }
  }
};
