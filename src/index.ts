/**
 * Notebook Agent: a JupyterLab extension whose agent plans, writes and runs
 * cells in the active notebook's kernel. Small plugins that wire: the core
 * (session, tools, configuration), the public API (INotebookAgent), the
 * sidebar, the commands and inline completion.
 */
import { apiPlugin } from './jupyter/plugins/api-plugin';
import { commandsPlugin } from './jupyter/plugins/commands-plugin';
import { completionPlugin } from './jupyter/plugins/completion-plugin';
import { corePlugin } from './jupyter/plugins/core-plugin';
import { sidebarPlugin } from './jupyter/plugins/sidebar-plugin';

export * from './tokens';

export default [
  corePlugin,
  apiPlugin,
  sidebarPlugin,
  commandsPlugin,
  completionPlugin
];
