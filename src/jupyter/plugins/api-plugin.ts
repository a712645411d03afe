/**
 * The public API plugin: provides INotebookAgent, through which other
 * extensions register tools and read the session and the models.
 */
import type { JupyterFrontEndPlugin } from '@jupyterlab/application';
import { INotebookAgent } from '../../tokens';
import { IAgentCore } from './host-tokens';

/** Provides INotebookAgent. */
export const apiPlugin: JupyterFrontEndPlugin<INotebookAgent> = {
  id: 'jupyterlab-notebook-agent:api',
  description:
    'Notebook Agent for other extensions: register tools, read the session and the models.',
  autoStart: true,
  requires: [IAgentCore],
  provides: INotebookAgent,
  activate: (_app, { api }: Pick<IAgentCore, 'api'>) => api
};
