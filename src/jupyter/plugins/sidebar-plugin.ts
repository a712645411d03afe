/**
 * The sidebar plugin: the chat in JupyterLab's right sidebar, with its
 * attachments, saved chats, configuration display and project rules line.
 */
import type {
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { INotebookTracker } from '@jupyterlab/notebook';
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { AttachmentStore } from '../../components/attachment-store';
import { AgentSidebar, SIDEBAR_ID } from '../../widgets/agent-sidebar';
import type { AgentHost } from '../agent-host';
import { setupAttachments } from '../attachments-glue';
import { persistChats } from '../chat-persistence';
import { ChatStoreClient } from '../chat-store';
import { acceptContentsDrops } from '../contents-drop';
import { localModelReach } from '../local-model-reach';
import { localModelStatus } from '../local-model-status';
import { notebookMentions } from '../mention-source';
import { sidebarActions } from '../sidebar-actions';
import { notebookStatus } from '../notebook-status';
import { SidebarConfiguration } from '../sidebar-configuration';
import { IAgentHost, IAgentSidebar } from './host-tokens';

/** Adds the agent's sidebar. */
export const sidebarPlugin: JupyterFrontEndPlugin<AgentSidebar> = {
  id: 'jupyterlab-notebook-agent:sidebar',
  description: "Notebook Agent's chat sidebar.",
  autoStart: true,
  requires: [IAgentHost, INotebookTracker, IRenderMimeRegistry],
  provides: IAgentSidebar,
  activate: (
    app: JupyterFrontEnd,
    host: AgentHost,
    tracker: INotebookTracker,
    rendermime: IRenderMimeRegistry
  ) => {
    const { session, trans } = host;
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
    const shown = new SidebarConfiguration(host.config, serverSettings, trans);
    host.configChanged.connect(() => shown.refresh());
    const sidebar = new AgentSidebar({
      session,
      rendermime,
      config: shown.store,
      rules: host.rules,
      attachments,
      mentions: notebookMentions(tracker),
      localModel: localModelStatus,
      localReach: localModelReach,
      notebook: notebookStatus(session, tracker, serverSettings),
      mcp: host.mcp,
      trans,
      history: persistChats(
        session,
        tracker,
        new ChatStoreClient(serverSettings)
      ),
      actions: sidebarActions({
        app,
        tracker,
        host,
        attachments,
        attachFiles: attach.files
      })
    });
    app.shell.add(sidebar, 'right', { rank: 900 });
    acceptContentsDrops(sidebar.node, attach.paths);
    shown.refresh();
    return sidebar;
  }
};
