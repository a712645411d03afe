/**
 * One turn of the loop: what the caller gives besides the run's
 * configuration (where it works, the conversation, who hears of it), and
 * what the turn's steps share while it runs.
 */
import type { ISummarySlot } from '../context/summary';
import type { INotebookPort } from '../ports';
import type { ToolFilter } from '../tools/registry';
import type { RunState } from '../tools/run-state';
import type { AgentEvent } from '../types';
import type { ApprovalMode, Approver } from './approval';
import type { IConversation } from './conversation';
import type { RunConfig } from './run-config';
import type { FailureStreak } from './stop-conditions';

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
