/**
 * The agent core in parts, each the narrow interface a plugin reads
 * (../plugins/host-tokens.ts provides them as one token): the commands read
 * `runs`; the sidebar `runs`, `configuration` and `sources`; the API plugin
 * `api`. The AgentHost (./agent-host.ts) implements them; no plugin sees
 * the class.
 */
import type { NotebookPanel } from '@jupyterlab/notebook';
import type { TranslationBundle } from '@jupyterlab/translation';
import type { ISignal } from '@lumino/signaling';
import type { AgentSession, IRunTarget } from '../../agent/session';
import type { McpToolSource } from '../../agent/tools/mcp-tools';
import type { IReadable } from '../../agent/value-store';
import type { INotebookAgent } from '../../tokens';
import type { AgentConfig } from '../config/agent-config';
import type { IAgentSettings } from '../config/settings';
import type { ProjectRulesStore } from './rules-store';

/** The chat session and what a run on a notebook gets. */
export interface IAgentRuns {
  /** The chat session of the sidebar. */
  readonly session: AgentSession;
  /** The model and notebook of a run on `panel` (its close stops the agent's code). */
  targetFor(panel: NotebookPanel | null): IRunTarget;
  /** The extension's translations. */
  readonly trans: TranslationBundle;
  /**
   * Since when a model server has read the prompt of the chat's request
   * without answering yet (null: none waits): "Reading the prompt…".
   */
  readonly modelWait: IReadable<number | null>;
}

/** The configuration, resolved, and the ways to change it. */
export interface IAgentConfiguration {
  /** The settings, the server's status and the chat's choice. */
  readonly config: AgentConfig;
  /** Emitted when the settings, the server's status or the chat's model choice change. */
  readonly configChanged: ISignal<unknown, void>;
  /** Change one setting (nothing happens before the settings have loaded). */
  setSetting(key: keyof IAgentSettings, value: string): Promise<void>;
  /** Ask the server for its endpoints again. */
  refreshStatus(): Promise<void>;
  /** Ask the server to look again for model servers on its machine. */
  lookForLocalServers(): Promise<void>;
}

/** What runs read beyond the notebook: the project rules, the MCP servers' tools. */
export interface IAgentSources {
  /** The project rules of the active notebook (and of each run). */
  readonly rules: ProjectRulesStore;
  /** The Jupyter server's MCP servers and their tools. */
  readonly mcp: McpToolSource;
}

/** The agent core, in parts. */
export interface IAgentCore {
  readonly runs: IAgentRuns;
  readonly configuration: IAgentConfiguration;
  readonly sources: IAgentSources;
  /** The public face, for other extensions (INotebookAgent). */
  readonly api: INotebookAgent;
}
