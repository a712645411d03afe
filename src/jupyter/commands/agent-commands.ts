/**
 * The agent's commands (open, stop, new chat, Generate notebook, Fix this
 * cell) with their launcher card, palette items and the Fix buttons on error
 * outputs. The Generate dialog and its workflow load on first use.
 */
import type { JupyterFrontEnd } from '@jupyterlab/application';
import type { ICommandPalette } from '@jupyterlab/apputils';
import type { IDefaultFileBrowser } from '@jupyterlab/filebrowser';
import type { ILauncher } from '@jupyterlab/launcher';
import type { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import { agentIcon } from '../../widgets/icon';
import { refuseWhenBusy } from '../core/busy';
import type { IAgentRuns, IAgentSidebar } from '../core/parts';
import { CommandIDs } from './commands';
import { installFixButtons } from '../fix/fix-button';
import { fixTarget } from '../fix/fix-target';
import {
  LocalModelCommandIDs,
  registerLocalModelCommands
} from '../local-model/local-model-commands';

/** What the commands act on. */
export interface IAgentCommandsOptions {
  app: JupyterFrontEnd;
  tracker: INotebookTracker;
  /** The chat and its tasks. */
  runs: IAgentRuns;
  sidebar: IAgentSidebar;
  showSidebar: () => void;
  fileBrowser: IDefaultFileBrowser | null;
  launcher: ILauncher | null;
  palette: ICommandPalette | null;
}

/** Register the agent's commands, launcher card, palette items and Fix buttons. */
export function registerAgentCommands(options: IAgentCommandsOptions): void {
  const { app, tracker, runs, sidebar, showSidebar } = options;
  const { session, trans } = runs;
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
      (await import('../generate/generate-command')).generateNotebookCommand(
        {
          app,
          runs,
          directory: () => options.fileBrowser?.model.path ?? '',
          showSidebar,
          trans
        },
        args
      )
  });

  /** Fix a cell of a notebook (the active one by default). */
  const fixCell = (panel: NotebookPanel, cellId: string) => {
    if (
      refuseWhenBusy(
        session,
        showSidebar,
        trans,
        trans.__('then ask for the fix again.')
      )
    ) {
      return;
    }
    showSidebar();
    runs.fixCell(panel, cellId);
  };
  app.commands.addCommand(CommandIDs.fixCell, {
    label: trans.__('Fix This Cell with Notebook Agent'),
    caption: trans.__(
      'The agent edits the cell (or an earlier one), reruns it until it works, and shows you the diff.'
    ),
    icon: agentIcon,
    // Enabled while a run is active too: the command then says why it
    // cannot start, instead of a shortcut doing nothing.
    isEnabled: args => fixTarget(app, tracker, args)?.type === 'code',
    execute: args => {
      // The cell right-clicked, `cellId`'s, or the active one (../fix/fix-target.ts).
      const target = fixTarget(app, tracker, args);
      if (target) {
        fixCell(target.panel, target.cellId);
      }
    }
  });
  installFixButtons(tracker, fixCell, trans);
  registerLocalModelCommands(app.commands, trans);

  options.launcher?.add({
    command: CommandIDs.generateNotebook,
    args: { isLauncher: true },
    category: 'Notebook',
    rank: 10,
    // Cards in the Notebook section show a kernel-style image, not the command's icon.
    kernelIconUrl: `data:image/svg+xml;base64,${btoa(agentIcon.svgstr)}`
  });
  for (const command of [
    CommandIDs.open,
    CommandIDs.newChat,
    CommandIDs.stop,
    CommandIDs.generateNotebook,
    CommandIDs.fixCell,
    CommandIDs.addCellsToChat,
    LocalModelCommandIDs.clearCache
  ]) {
    options.palette?.addItem({
      command,
      category: trans.__('Notebook Agent')
    });
  }
}
