/**
 * What a workflow (Generate notebook, Fix this cell) needs from the session:
 * a way to run one agent turn on a prompt, in the same conversation, with
 * the transcript and approvals the user sees.
 */
import type { ApprovalMode } from '../loop/approval';
import type { IRunOutcome } from '../loop/run-agent';
import type { ToolFilter } from '../tools/registry';

/** Per-turn adjustments a workflow may ask for. */
export interface ITurnOptions {
  /** What the transcript shows instead of the (long) prompt. */
  display?: string;
  /**
   * The prompt is sent again (Retry): the transcript already shows it, so
   * no second line is added.
   */
  again?: boolean;
  /**
   * A workflow's own line for this turn (a retry: "The cell still fails:
   * attempt 2 of 3"): shown as a status line, not as the user's message.
   */
  status?: string;
  /** Cells whose source the prompt gave the model, so it may edit them at once. */
  knownCells?: ReadonlyArray<{ id: string; source: string }>;
  /** Tools that need the user's approval in this turn whatever the mode. */
  alwaysAsk?: ToolFilter;
  /** The approval mode for this turn, when the task chose one (else the setting's). */
  approvalMode?: ApprovalMode;
  /** Cells the user already asked to edit and run (the cell to fix): no approval needed. */
  approvedCells?: ReadonlySet<string>;
  /** The text protocol: the cell a reply's code block rewrites (loop/run-config.ts `ITurnScope`). */
  codeTarget?: string;
  /** Every reply is begun as code, or must call a tool. */
  codeOnly?: boolean;
  /** The turn ends once a call that runs this cell (`true`: any new cell) was carried out. */
  endAfterRun?: string | true;
  /** The reply is words for the workflow (a plan, a summary): nothing runs from it. */
  wordsOnly?: boolean;
  /**
   * The reply is sampled, not greedy (model/sampling.ts): a retry after a
   * greedy model sent the same code back.
   */
  sampled?: boolean;
  /** The text protocol: the reply is begun with this. */
  prefill?: string;
  /**
   * The model reads the system prompt and this task's own turns, not the
   * chat before the task: for prompts that carry all the model needs (a
   * fix's rewrite), where the chat's earlier code misled a small model.
   */
  ownHistory?: boolean;
}

/** Runs one agent turn for `prompt`; resolves when the turn ends. */
export type TurnRunner = (
  prompt: string,
  options?: ITurnOptions
) => Promise<IRunOutcome>;
