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
import { registerAgentCommands } from '../commands/agent-commands';
import { IAgentCore, IAgentSidebar } from './host-tokens';

/** Adds the agent's commands. */
export const commandsPlugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyterlab-notebook-agent:commands',
  description: "Notebook Agent's commands, launcher card and Fix buttons.",
  autoStart: true,
  requires: [IAgentCore, IAgentSidebar, INotebookTracker],
  optional: [ICommandPalette, ILauncher, IDefaultFileBrowser],
  activate: (
    app: JupyterFrontEnd,
    { runs }: Pick<IAgentCore, 'runs'>,
    sidebar: IAgentSidebar,
    tracker: INotebookTracker,
    palette: ICommandPalette | null,
    launcher: ILauncher | null,
    fileBrowser: IDefaultFileBrowser | null
  ) => {
    registerAgentCommands({
      app,
      tracker,
      runs,
      sidebar,
      showSidebar: () => app.shell.activateById(sidebar.id),
      fileBrowser,
      launcher,
      palette
    });
  }
};
