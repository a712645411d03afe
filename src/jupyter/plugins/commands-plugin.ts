/**
 * The commands plugin: open, stop, new chat, Generate notebook and Fix
 * this cell, with their launcher card, palette items and Fix buttons.
 */
import type {
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { ICommandPalette } from '@jupyterlab/apputils';
import { IDefaultFileBrowser } from '@jupyterlab/filebrowser';
import { ILauncher } from '@jupyterlab/launcher';
import { INotebookTracker } from '@jupyterlab/notebook';
import type { AgentSidebar } from '../../widgets/agent-sidebar';
import type { AgentHost } from '../agent-host';
import { registerAgentCommands } from '../agent-commands';
import { IAgentHost, IAgentSidebar } from './host-tokens';

/** Adds the agent's commands. */
export const commandsPlugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyterlab-notebook-agent:commands',
  description: "Notebook Agent's commands, launcher card and Fix buttons.",
  autoStart: true,
  requires: [IAgentHost, IAgentSidebar, INotebookTracker],
  optional: [ICommandPalette, ILauncher, IDefaultFileBrowser],
  activate: (
    app: JupyterFrontEnd,
    host: AgentHost,
    sidebar: AgentSidebar,
    tracker: INotebookTracker,
    palette: ICommandPalette | null,
    launcher: ILauncher | null,
    fileBrowser: IDefaultFileBrowser | null
  ) => {
    registerAgentCommands({
      app,
      tracker,
      session: host.session,
      sidebar,
      targetFor: panel => host.targetFor(panel),
      showSidebar: () => app.shell.activateById(sidebar.id),
      fileBrowser,
      launcher,
      palette,
      trans: host.trans
    });
  }
};
