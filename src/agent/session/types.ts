/**
 * The types of a chat session, in one module that imports no
 * implementation: what the UI reads (the state and its transcript), what a
 * session is built with, and the shapes by which the store, the task runner
 * and the facade (store.ts, runner.ts, agent-session.ts) talk.
 */
import type { ApprovalMode, IApprovalRequest } from '../loop/approval';
import type { IRunOutcome } from '../loop/run-agent';
import type { IProjectRules } from '../context/project-rules';
import type { IVisionOptions } from '../loop/vision';
import type { ToolProtocol } from '../model/capabilities';
import type { IModelClient } from '../model/types';
import type { INotebookPort } from '../ports';
import type { IToolImage } from '../tool-images';
import type { IExtraTools } from '../tools/mcp-tools';
import type { ToolKind, ToolRegistry } from '../tools/registry';
import type { IRunSettings, OffersTool } from '../tools/run-state';
import type { IAgentError, IPlanStep, IRunningCell, IUsage } from '../types';
import type { ICellChange } from '../workflows/cell-changes';
import type { IFixResult } from '../workflows/fix-cell';
import type { IAttachedFile } from '../workflows/generate-notebook';
import type { ITurnOptions } from '../workflows/turn-runner';

/**
 * One entry of the visible transcript, derived from the chat's record
 * (chat-entries.ts, transcript.ts).
 */
export type TranscriptItem =
  | { kind: 'user'; id: string; text: string }
  | {
      kind: 'assistant';
      id: string;
      text: string;
      /**
       * Numbers the answer states that nothing in the notebook computed
       * (the turn ran no code, and no output or prompt shows them): the
       * sidebar marks the answer "not computed in the notebook".
       */
      notComputed?: string[];
      /**
       * A small model's answer the compute check sent back because no code
       * had run (or none ran cleanly): the sidebar folds it away under its
       * label, so the answer that reads as the answer is the computed one.
       */
      guess?: boolean;
    }
  | {
      kind: 'tool';
      id: string;
      name: string;
      /** What the call does, in words (its tool's title); absent in chats saved before titles. */
      title?: string;
      /** The code the call carries (its tool's code argument), shown on the card. */
      code?: string;
      /** What the call does (its tool's kind): a `run` card shows its output unopened. */
      toolKind?: ToolKind;
      /** The call's arguments as the model sent them (JSON), for an opened card without code. */
      arguments: string;
      /**
       * `interrupted`: the page went away (reload, closed tab) while it ran;
       * `rejected`: the user said no (nothing ran).
       */
      status: 'running' | 'done' | 'error' | 'interrupted' | 'rejected';
      /** What the user said when rejecting it. */
      reason?: string;
      output?: string;
      /**
       * The cell the call runs or waits for (`run_cell`, `wait`), from the
       * tool-call event: a chat reopened mid-run names the cells its run
       * may have left running from its cards alone.
       */
      runsCell?: string;
      /** The code it ran was still running when it returned (a soft timeout). */
      stillRunning?: boolean;
      cellId?: string;
      durationMs?: number;
      /** Images the outputs showed, for thumbnails (bounded: tool-images.ts). */
      images?: IToolImage[];
      /** Images not shown on the card (over the caps, or not kept in a saved chat). */
      moreImages?: number;
      /**
       * The file the call wrote (write_file): `created` when there was none
       * before; `undone` once its Undo put the file back. The card offers
       * Undo while the session holds the content before (not after a reload).
       */
      file?: { path: string; created: boolean; undone?: boolean };
    }
  | {
      kind: 'notice';
      id: string;
      text: string;
      /** Cells the agent left running: the notice offers Interrupt. */
      runningCells?: IRunningCell[];
      /** "Earlier steps summarised": what the model now reads instead of them. */
      summary?: string;
    };

/** Everything the UI shows. */
export interface ISessionState {
  items: ReadonlyArray<TranscriptItem>;
  status: 'idle' | 'running';
  error: IAgentError | null;
  usage: IUsage;
  /** Tokens of the last task (a prompt, a generation, a fix), for the header. */
  lastTurn: IUsage | null;
  /** A call waiting for the user's approval. */
  pendingApproval: IApprovalRequest | null;
  /** The agent's plan, as it last stated it (update_plan). */
  plan: ReadonlyArray<IPlanStep> | null;
  /** A fix waiting for the user's Accept or Reject. */
  review: IFixReview | null;
  /** This chat's provider and model; null: the defaults from the settings. */
  choice: IModelChoice | null;
  /**
   * Set when the reopened chat was saved in the middle of a run whose page
   * went away (a reload, a closed tab): the cells that run may have left
   * running in the kernel. Cleared by the next task or chat.
   */
  interruptedRun: { cellIds: string[] } | null;
}

/** A chat's choice of provider and model ('' = the provider's default model). */
export interface IModelChoice {
  provider: string;
  model: string;
}

/** The changes of a "Fix this cell" run, for the user to accept or reject. */
export interface IFixReview {
  cellId: string;
  status: IFixResult['status'];
  attempts: number;
  /** Turns in which the agent changed no cell (not attempts); absent in reviews before it. */
  turnsWithoutEdit?: number;
  /** Why a fix that is not done ended (see `IFixResult.gaveUp`). */
  gaveUp?: IFixResult['gaveUp'];
  changes: ReadonlyArray<ICellChange>;
  /** The changed cells as the user sees them ("[4]", or "2" by position), by id. */
  names?: Readonly<Record<string, string>>;
  /** The cell's remaining problem, when it is not fixed. */
  problem?: string;
}

/** What a run needs from the outside world. */
export interface IRunTarget {
  /** The model client (built once per settings); may throw a `ModelConfigError`. */
  model: () => IModelClient;
  /** The notebook to work in; null when none is open. */
  notebook: INotebookPort | null;
}

/** What an AgentSession is built with; the functions are read at each run. */
export interface ISessionOptions {
  tools: ToolRegistry;
  maxSteps?: () => number;
  approvalMode?: () => ApprovalMode;
  runSettings?: () => IRunSettings;
  contextTokens?: () => number;
  vision?: () => IVisionOptions;
  /** `text` for models without tool calling. */
  toolProtocol?: () => ToolProtocol;
  /**
   * Whether the user chose the protocol (a setting, not the model's
   * defaults): a chosen one is kept even where the server is seen not to
   * enforce tool calls (run-setup.ts).
   */
  toolProtocolChosen?: () => boolean;
  /**
   * `small` for small local models: the short prompt and the few tools
   * of `smallTools` (they lose track of long instructions and tool lists).
   */
  profile?: () => 'standard' | 'small';
  /** False for models that garble several tool calls in one turn: the prompt asks for one. */
  parallelToolCalls?: () => boolean;
  smallTools?: ToolRegistry;
  /**
   * Tools from outside the agent (the Jupyter server's MCP servers), read
   * at the start of each task; native tool calls and the standard profile
   * only (small models and the text protocol keep their short tool lists).
   */
  extraTools?: () => IExtraTools;
  /**
   * The project rules (AGENTS.md) of a notebook, read when a task starts
   * and added to the system prompt; none when omitted (or turned off).
   */
  projectRules?: (notebookPath: string) => Promise<IProjectRules | null>;
}

/**
 * Runs one turn of a task for `prompt`; `undoGroup` false when the task
 * groups the turn's edits itself.
 */
export type TaskTurn = (
  prompt: string,
  options?: ITurnOptions,
  undoGroup?: boolean
) => Promise<IRunOutcome>;

/**
 * How a task's runs talk to the model (chosen when it starts,
 * session/run-setup.ts): workflows ask a small model differently.
 */
export interface ITaskSetup {
  protocol: 'native' | 'text';
  profile: 'standard' | 'small';
  /** Whether the runs offer a tool: the workflows' prompts name only those. */
  offers: OffersTool;
}

/** The body of a task: its turns in `notebook`, until `signal` aborts. */
export type TaskWork<T> = (
  turn: TaskTurn,
  notebook: INotebookPort,
  signal: AbortSignal,
  setup: ITaskSetup
) => Promise<T>;

/** How a generation was asked for. */
export interface IGenerateRequestOptions {
  attachments?: ReadonlyArray<IAttachedFile>;
  /** E.g. `run-everything` when the user chose that for this new notebook. */
  approvalMode?: ApprovalMode;
}

/** What the workflows' tasks need from the session. */
export interface IWorkflowHost {
  /** The hard timeout of the runs, from the settings. */
  hardTimeoutMs: () => number;
  /** Add a notice to the transcript. */
  notice: (text: string) => void;
  /** Show a fix's changes (made in `notebook`) for Accept or Reject. */
  review: (review: IFixReview, notebook: INotebookPort) => void;
}
