/**
 * What a run is given. Its configuration (`RunConfig`): built once when a
 * task starts (from the session's live options, session/run-setup.ts) and
 * passed whole to the loop and its steps, so no layer relays it field by
 * field; readonly: a setting changed during a run applies to the next one.
 * And each turn's own (`ITurn`: where it works, the conversation, who hears
 * of it), with what the turn's steps share while it runs (`IRunContext`).
 */
import type { ISummarySlot } from '../context/summary';
import type { IModelClient } from '../model/types';
import type { INotebookPort } from '../ports';
import type { ToolFilter, ToolRegistry } from '../tools/registry';
import {
  DEFAULT_RUN_SETTINGS,
  type IRunSettings,
  type RunState
} from '../tools/run-state';
import type { AgentEvent, ChatMessage } from '../types';
import {
  DEFAULT_APPROVAL_MODE,
  type ApprovalMode,
  type Approver
} from './approval';
import type { IConversation } from './conversation';
import type { IComputeFirst } from './next-step';
import { DEFAULT_MAX_STEPS, type FailureStreak } from './stop-conditions';
import type { IVisionOptions } from './vision';

/** Default context window, in tokens, when the model's is not known. */
export const DEFAULT_CONTEXT_TOKENS = 32768;

/** Everything a run is configured with. */
export type RunConfig = {
  /** The configured client, wrapped for the profile and the protocol. */
  readonly model: IModelClient;
  /** The tools this run offers (the profile's and protocol's, with any outside tools). */
  readonly tools: ToolRegistry;
  readonly profile: 'standard' | 'small';
  /** How the model runs code: tool calls, or code blocks (loop/text-protocol-client.ts). */
  readonly protocol: 'native' | 'text';
  /** The mode of the run (a turn of a workflow may choose its own: `ITurnScope`). */
  readonly approvalMode: ApprovalMode;
  readonly maxSteps: number;
  /** The kernel timeouts of the run's cells. */
  readonly runSettings: IRunSettings;
  /** The model's context window, in tokens. */
  readonly contextTokens: number;
  /** Whether and how images reach the model (absent: not at all). */
  readonly vision?: IVisionOptions;
  /**
   * Small models: show the start of the data files the request names
   * before the first model call, and send an answer back when it was not
   * computed (compute-check.ts).
   */
  readonly computeFirst?: IComputeFirst;
  /** The conversation's first message (without the project rules, read apart). */
  readonly system: ChatMessage;
  /** Why this run talks to the model differently from its settings, for the chat. */
  readonly notice?: string;
};

/**
 * A configuration from its model and tools, the rest defaulted: for runs
 * set up by hand (tests, scripts), not through a session.
 */
export function runConfig(
  parts: Pick<RunConfig, 'model' | 'tools'> & Partial<RunConfig>
): RunConfig {
  return {
    profile: 'standard',
    protocol: 'native',
    approvalMode: DEFAULT_APPROVAL_MODE,
    maxSteps: DEFAULT_MAX_STEPS,
    runSettings: DEFAULT_RUN_SETTINGS,
    contextTokens: DEFAULT_CONTEXT_TOKENS,
    system: { role: 'system', content: '' },
    ...parts
  };
}

/** A workflow's adjustments of one turn (workflows/turn-runner.ts `ITurnOptions`). */
export interface ITurnScope {
  /** The approval mode of this turn, when the task chose one (else the run's). */
  approvalMode?: ApprovalMode;
  /** Tools that always need the user's approval in this turn, whatever the mode. */
  alwaysAsk?: ToolFilter;
  /** Cells the user asked to have edited and run: calls of tools `approvedWithCell` on them need no approval. */
  approvedCells?: ReadonlySet<string>;
  /** Cells whose current source the model was given (it may edit them without reading first). */
  knownCells?: ReadonlyArray<{ id: string; source: string }>;
  /**
   * The text protocol: the cell this turn rewrites (a fix, a failed step):
   * a reply's code block becomes that cell's new source, run at once,
   * instead of a new cell.
   */
  codeTarget?: string;
  /** Every reply is begun as code (text protocol) or must call a tool (native). */
  codeOnly?: boolean;
  /**
   * The turn is one attempt at this cell (`true`: at any new cell): it ends
   * once a call that runs it was carried out (a fix needs no words after
   * it; the workflow checks the cell and asks again, or goes on).
   */
  endAfterRun?: string | true;
  /**
   * The reply is words for the workflow to use (a plan, a summary): no
   * code runs from it, and the answer checks of small models do not apply.
   */
  wordsOnly?: boolean;
  /**
   * The reply is sampled, not greedy (model/sampling.ts): a retry after a
   * greedy model sent the same code back.
   */
  sampled?: boolean;
  /** The text protocol: the reply is begun with this (a plan's `# `). */
  prefill?: string;
  /**
   * The model reads the conversation's first message (the system prompt)
   * and its messages from this index on, not the chat before (a task's own
   * turns: ContextKeeper).
   */
  historyFrom?: number;
}

/** Where and for whom one turn runs. */
export interface ITurn {
  notebook: INotebookPort;
  /** Ends with the user's new message; the turn appends its steps to it. */
  conversation: IConversation;
  /** Aborting stops the model stream and interrupts a running cell. */
  signal: AbortSignal;
  /** Receives progress as it happens. */
  onEvent: (event: AgentEvent) => void;
  /** Asks the user; without one, every call is approved (headless use). */
  approve?: Approver;
  /**
   * Where the conversation's summary lives (the session's, saved with the
   * chat); updated in place when older steps are summarised. Default: this
   * turn's own.
   */
  summary?: ISummarySlot;
  /** Clock for tool durations (tests inject one). */
  now?: () => number;
  /**
   * False when the caller groups several turns into one undo step itself
   * (a workflow of several turns); default true: this turn is one undo step.
   */
  undoGroup?: boolean;
  scope?: ITurnScope;
}

/** What the steps of one turn share. */
export interface IRunContext {
  config: RunConfig;
  turn: ITurn;
  state: RunState;
  failures: FailureStreak;
  now: () => number;
}
