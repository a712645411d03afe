/**
 * The token Notebook Agent's own plugins share (not public: other
 * extensions use INotebookAgent from src/tokens.ts). A JupyterLab plugin
 * provides one token, and the plugins and their ids are public (the core's
 * id is the settings'), so the core provides one: `IAgentCore`, an
 * interface of narrow parts (../core/parts.ts), never the objects that build
 * them (../core/agent-shell.ts). Each plugin names in its `activate` only the
 * parts it reads (`Pick<IAgentCore, 'runs'>`), and hands on only those.
 */
import { Token } from '@lumino/coreutils';
import type {
  IAgentCore as IAgentParts,
  IAgentSidebar as ISidebarPart
} from '../core/parts';

/** The agent core, in parts (../core/parts.ts). */
export type IAgentCore = IAgentParts;

/** The agent core: its parts, for Notebook Agent's own plugins. */
export const IAgentCore = new Token<IAgentCore>(
  'jupyterlab-notebook-agent:IAgentCore',
  "Notebook Agent's session, configuration and sources, for its own plugins."
);

/** The agent's sidebar, as the commands use it (../core/parts.ts). */
export type IAgentSidebar = ISidebarPart;

/** The agent's sidebar, for its commands. */
export const IAgentSidebar = new Token<IAgentSidebar>(
  'jupyterlab-notebook-agent:IAgentSidebar',
  "Notebook Agent's sidebar, for its commands."
);
