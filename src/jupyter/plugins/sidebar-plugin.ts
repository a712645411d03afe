/**
 * The sidebar plugin: the chat in JupyterLab's right sidebar, with its
 * attachments, saved chats, configuration display and project rules line.
 */
import {
  ILayoutRestorer,
  type JupyterFrontEnd,
  type JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { INotebookTracker } from '@jupyterlab/notebook';
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { AttachmentStore } from '../../components/prompt/attachment-store';
import { AgentSidebar, SIDEBAR_ID } from '../../widgets/agent-sidebar';
import { setupAttachments } from '../sidebar/attachments-glue';
import { persistChats } from '../persistence/chat-persistence';
import { ChatStoreClient } from '../persistence/chat-store';
import { acceptContentsDrops } from '../sidebar/contents-drop';
import { localModelReach } from '../local-model/local-model-reach';
import { localModelStatus } from '../local-model/local-model-status';
import { notebookMentions } from '../sidebar/mention-source';
import { sidebarActions } from '../sidebar/sidebar-actions';
import { notebookStatus } from '../sidebar/notebook-status';
import { SidebarConfiguration } from '../sidebar/sidebar-configuration';
import { IAgentCore, IAgentSidebar } from './host-tokens';

/** Adds the agent's sidebar. */
export const sidebarPlugin: JupyterFrontEndPlugin<IAgentSidebar> = {
  id: 'jupyterlab-notebook-agent:sidebar',
  description: "Notebook Agent's chat sidebar.",
  autoStart: true,
  requires: [IAgentCore, INotebookTracker, IRenderMimeRegistry],
  optional: [ILayoutRestorer],
  provides: IAgentSidebar,
  activate: (
    app: JupyterFrontEnd,
    {
      runs,
      configuration,
      sources
    }: Pick<IAgentCore, 'runs' | 'configuration' | 'sources'>,
    tracker: INotebookTracker,
    rendermime: IRenderMimeRegistry,
    restorer: ILayoutRestorer | null
  ) => {
    const { session, trans } = runs;
    const serverSettings = app.serviceManager.serverSettings;
    const attachments = new AttachmentStore();
    const showSidebar = () => app.shell.activateById(SIDEBAR_ID);
    const attach = setupAttachments(
      app,
      tracker,
      session,
      attachments,
      showSidebar,
      trans
    );
    const shown = new SidebarConfiguration(
      configuration.config,
      serverSettings,
      trans
    );
    configuration.configChanged.connect(() => shown.refresh());
    const sidebar = new AgentSidebar({
      session,
      rendermime,
      config: shown.store,
      rules: sources.rules,
      attachments,
      mentions: notebookMentions(tracker),
      localModel: localModelStatus,
      localReach: localModelReach,
      modelWait: runs.modelWait,
      notebook: notebookStatus(session, tracker, serverSettings),
      mcp: sources.mcp,
      trans,
      history: persistChats(
        session,
        tracker,
        new ChatStoreClient(serverSettings)
      ),
      actions: sidebarActions({
        app,
        tracker,
        runs,
        configuration,
        attachments,
        attachFiles: attach.files
      })
    });
    app.shell.add(sidebar, 'right', { rank: 900 });
    // A reload (mid-run too) opens the sidebar again if it was open.
    restorer?.add(sidebar, SIDEBAR_ID);
    acceptContentsDrops(sidebar.node, attach.paths);
    shown.refresh();
    return sidebar;
  }
};
