/**
 * The agent core in parts, each the narrow interface a plugin reads
 * (../plugins/host-tokens.ts provides them as one token): the commands read
 * `runs`; the sidebar `runs`, `configuration` and `sources`; inline
 * completion `runs` and `configuration`; the API plugin `api`. Each part is
 * an object of its own (./agent-shell.ts builds them); none loads the
 * runs part (../runs/runs-part.ts), which `runs` loads with the first task.
 */
import type { NotebookPanel } from '@jupyterlab/notebook';
import type { TranslationBundle } from '@jupyterlab/translation';
import type { ISignal } from '@lumino/signaling';
import type { IAttachments } from '../../agent/context/attachments';
import type { IModelClient } from '../../agent/model/types';
import type { ChatSession } from '../../agent/session/chat-session';
import type { IGenerateRequestOptions } from '../../agent/session/types';
import type { McpListing } from '../../agent/tools/mcp-listing';
import type { IReadable } from '../../agent/value-store';
import type { INotebookAgent } from '../../tokens';
import type { AgentConfig } from '../config/agent-config';
import type { IAgentSettings } from '../config/settings';
import type { ProjectRulesStore } from './rules-store';

/**
 * The chat and its tasks. A task's machinery (the loop, the tools, the
 * live ports) loads with the first Send, Retry, Generate or Fix, or
 * earlier with `preload`; until then the chat is all there is.
 */
export interface IAgentRuns {
  /** The sidebar's chat: its state, and Stop, approvals and Undo during a task. */
  readonly session: ChatSession;
  /** The extension's translations. */
  readonly trans: TranslationBundle;
  /**
   * Since when a model server has read the prompt of the chat's request
   * without answering yet (null: none waits): "Reading the prompt…".
   */
  readonly modelWait: IReadable<number | null>;
  /**
   * Ask the agent about `prompt` in `panel`'s notebook. False when the
   * task cannot start (no notebook, no model configured, a task running):
   * the chat says why, and the prompt should be kept.
   */
  send(
    prompt: string,
    panel: NotebookPanel | null,
    attachments: IAttachments
  ): boolean;
  /** Send the last request again, in `panel`'s notebook (after an error). */
  retry(panel: NotebookPanel | null): void;
  /** Fix the code cell `cellId` of `panel`'s notebook. */
  fixCell(panel: NotebookPanel, cellId: string): void;
  /** Generate a notebook from `request` in `panel`'s (new, empty) notebook. */
  generate(
    request: string,
    panel: NotebookPanel,
    options: IGenerateRequestOptions
  ): Promise<void>;
  /** Load the tasks' machinery now (the prompt's first focus), not with the first task. */
  preload(): void;
}

/** The configuration, resolved, and the ways to change it. */
export interface IAgentConfiguration {
  /** The settings, the server's status and the chat's choice. */
  readonly config: AgentConfig;
  /** Emitted when the settings, the server's status or the chat's model choice change. */
  readonly configChanged: ISignal<unknown, void>;
  /** The model client the chat uses now (built once per settings; throws when none is configured). */
  currentModel(): IModelClient;
  /** Change one setting (nothing happens before the settings have loaded). */
  setSetting(key: keyof IAgentSettings, value: string): Promise<void>;
  /** Ask the server for its endpoints again. */
  refreshStatus(): Promise<void>;
  /** Ask the server to look again for model servers on its machine. */
  lookForLocalServers(): Promise<void>;
}

/** What runs read beyond the notebook: the project rules, the MCP servers' listing. */
export interface IAgentSources {
  /** The project rules of the active notebook (and of each run). */
  readonly rules: ProjectRulesStore;
  /** The Jupyter server's MCP servers and their tools' definitions. */
  readonly mcp: McpListing;
}

/** The agent's sidebar, as the commands use it (the sidebar plugin provides it). */
export interface IAgentSidebar {
  /** Its widget id (to show it). */
  readonly id: string;
  /** Put the cursor in the prompt. */
  focusPrompt(): void;
}

/** The agent core, in parts. */
export interface IAgentCore {
  readonly runs: IAgentRuns;
  readonly configuration: IAgentConfiguration;
  readonly sources: IAgentSources;
  /** The public face, for other extensions (INotebookAgent). */
  readonly api: INotebookAgent;
}
