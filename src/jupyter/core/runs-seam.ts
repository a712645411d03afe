/**
 * The seam between the shell, loaded at JupyterLab's start, and the runs
 * part (../runs/runs-part.ts), loaded with the first task: what the shell hands
 * the part, and what the part gives back. Types only: the shell imports
 * this module without loading the part.
 */
import type { NotebookPanel } from '@jupyterlab/notebook';
import type { Contents } from '@jupyterlab/services';
import type { TranslationBundle } from '@jupyterlab/translation';
import type { INotebookPort } from '../../agent/ports';
import type { AgentSession } from '../../agent/session/agent-session';
import type { ChatSession } from '../../agent/session/chat-session';
import type { IRunTarget } from '../../agent/session/types';
import type { McpListing } from '../../agent/tools/mcp-listing';
import type { ToolQueue } from '../../agent/tools/tool-queue';
import type { IAgentConfiguration } from './parts';
import type { ProjectRulesStore } from './rules-store';
import type { RunLog } from '../live-port/run-log';

/** What the runs part is built from: the shell's state. */
export interface IRunsShell {
  /** The sidebar's chat, whose tasks the part runs. */
  chat: ChatSession;
  configuration: IAgentConfiguration;
  rules: ProjectRulesStore;
  mcp: McpListing;
  /** Tools other extensions registered (and will register). */
  tools: ToolQueue;
  /** The cells' last runs since start, per notebook. */
  runLog: RunLog;
  contents: Contents.IManager;
  trans: TranslationBundle;
}

/** The runs part, loaded. */
export interface IRunsPart {
  /** The chat with its tasks (send, retry, Generate, Fix). */
  readonly session: AgentSession;
  /** The model and notebook of a task in `panel` (its close stops the agent). */
  targetFor(panel: NotebookPanel | null): IRunTarget;
  /** The live port of `panel` (one per notebook, built on first use). */
  portFor(panel: NotebookPanel | null): INotebookPort | null;
}
