/**
 * What the sidebar's buttons and pickers do (ISidebarActions), in terms of
 * the agent's runs and configuration, the notebooks and JupyterLab's
 * commands.
 */
import type { JupyterFrontEnd } from '@jupyterlab/application';
import type { INotebookTracker } from '@jupyterlab/notebook';
import type { AttachmentStore } from '../../components/prompt/attachment-store';
import type { ISidebarActions } from '../../components/config/sidebar-config';
import { insertCodeCell, showCell } from './cell-actions';
import { checkLocalModelReach } from '../local-model/local-model-reach';
import { chatPanel } from './notebook-status';
import { askForProviderKey } from '../config/key-dialog';
import type { IAgentConfiguration, IAgentRuns } from '../core/parts';

/** What `sidebarActions` acts on. */
export interface ISidebarActionsOptions {
  app: JupyterFrontEnd;
  tracker: INotebookTracker;
  runs: IAgentRuns;
  configuration: IAgentConfiguration;
  attachments: AttachmentStore;
  /** Copies dropped or picked files next to the notebook and attaches them. */
  attachFiles: (files: File[]) => void;
}

/** The sidebar's actions. */
export function sidebarActions(
  options: ISidebarActionsOptions
): ISidebarActions {
  const { app, tracker, runs, configuration, attachments } = options;
  const { session, trans } = runs;
  const { config } = configuration;
  const serverSettings = app.serviceManager.serverSettings;
  return {
    send: prompt => {
      const started = runs.send(
        prompt,
        tracker.currentWidget,
        attachments.getSnapshot()
      );
      if (started) {
        attachments.clear();
      }
      return started;
    },
    // The prompt's first focus: the first reply is near, so what runs it
    // loads now, and the model's library.
    prepare: () => {
      runs.preload();
      try {
        configuration.currentModel().prepare?.();
      } catch {
        // Not configured: the run that follows says so.
      }
    },
    retry: () =>
      runs.retry(
        tracker.find(p => p.context.path === session.notebookPath) ??
          tracker.currentWidget
      ),
    checkLocalModel: () => checkLocalModelReach(config),
    showCell: cellId =>
      showCell(app, tracker, cellId)
        ? 'shown'
        : chatPanel(session, tracker)
          ? 'deleted'
          : 'closed',
    interruptKernel: () =>
      void chatPanel(session, tracker)
        ?.sessionContext.session?.kernel?.interrupt()
        .catch(() => undefined),
    undoFile: callId => void session.undoFile(callId),
    canUndoFile: callId => session.canUndoFile(callId),
    showNotebook: () => {
      const panel = chatPanel(session, tracker);
      if (panel) {
        app.shell.activateById(panel.id);
      }
    },
    insertCode: code => insertCodeCell(app, tracker, session, code, trans),
    attachFiles: options.attachFiles,
    setApprovalMode: mode =>
      void configuration.setSetting('approvalMode', mode),
    // A model name belongs to its provider: switching provider starts from
    // its default. The chat switches at once; the settings remember the
    // choice for new chats.
    setProvider: name => {
      session.setModelChoice({ provider: name, model: '' });
      void configuration
        .setSetting('model', '')
        .then(() => configuration.setSetting('provider', name));
    },
    setModel: model => {
      session.setModelChoice({ ...config.chatChoice(), model });
      void configuration.setSetting('model', model);
    },
    setKey: () => {
      const provider = config.selectedProvider();
      if (provider) {
        void askForProviderKey(provider, serverSettings, session, trans).then(
          () => configuration.refreshStatus()
        );
      }
    },
    openSettings: () =>
      void app.commands.execute('settingeditor:open', {
        query: 'Notebook Agent'
      }),
    lookForLocalServers: () => void configuration.lookForLocalServers(),
    openRule: path => void app.commands.execute('docmanager:open', { path })
  };
}
