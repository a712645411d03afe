/**
 * Notebook Agent: a JupyterLab extension whose agent plans, writes and runs
 * cells in the active notebook's kernel.
 */
import { agentPlugin } from './jupyter/plugin';

export default [agentPlugin];
