/**
 * Tokens Notebook Agent's own plugins share (not public: other extensions
 * use INotebookAgent from src/tokens.ts).
 */
import { Token } from '@lumino/coreutils';
import type { AgentSidebar } from '../../widgets/agent-sidebar';
import type { AgentHost } from '../agent-host';

/** The agent host: session, tools, configuration, ports, rules. */
export const IAgentHost = new Token<AgentHost>(
  'jupyterlab-notebook-agent:IAgentHost',
  "Notebook Agent's session and configuration, for its own plugins."
);

/** The agent's sidebar widget. */
export const IAgentSidebar = new Token<AgentSidebar>(
  'jupyterlab-notebook-agent:IAgentSidebar',
  "Notebook Agent's sidebar, for its commands."
);
