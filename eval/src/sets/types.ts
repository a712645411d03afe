/**
 * The evaluation sets of the other entry points: follow-up questions in one
 * chat, Fix this cell, and Generate notebook (eval/README.md). Each runs
 * through the product's own AgentSession (`send`, `fixCell`, `generate`),
 * as the sidebar and the command line do; the Q&A set (task.ts, runner.ts)
 * keeps its own path.
 */
import type { Checker } from '../task';

/** Which entry point a set measures. */
export type SetKind = 'qa' | 'followup' | 'fix' | 'generate';

/** The kinds that run through an AgentSession (all but Q&A). */
export type SessionSetKind = Exclude<SetKind, 'qa'>;

/** Limits a task may set (or a set, in `defaults`, for all its tasks). */
export interface ITaskLimits {
  /** Model calls per turn (the session's step limit). */
  max_steps?: number;
  /**
   * Seconds: per question for follow-ups, per fix, per generation; when it
   * runs out the session is stopped (as the user's Stop would).
   */
  timeout_s?: number;
}

/** One question of a follow-up session. */
export interface IQuestion {
  /** What the user types, leaning on the questions before it. */
  prompt: string;
  checker: Checker;
  /**
   * Reference code (run after the previous questions' references, in one
   * kernel): it prints `ANSWER: <value>` or makes the plot, so that a test
   * proves the checker right against the generated data.
   */
  solution: string;
}

/** A follow-up session: its questions asked in order, in one notebook and chat. */
export interface IFollowupTask extends ITaskLimits {
  id: string;
  category?: string;
  files?: string[];
  questions: IQuestion[];
}

/** A notebook with a broken cell: its cells are run in order, then the agent fixes one. */
export interface IFixTask extends ITaskLimits {
  id: string;
  category?: string;
  files?: string[];
  /**
   * What the user asked in the chat before (sent in order, each run to its
   * end, the agent's cells kept): a Fix then runs in a chat with history
   * and below the agent's cells, as a user meets it.
   */
  asked_before?: string[];
  /** The notebook's code cells, the user's working ones and the broken one. */
  cells: string[];
  /** The index of the broken cell in `cells` (default: the last). */
  target?: number;
  /** The reference fix: the broken cell's source once fixed. */
  solution: string;
  /** Run in the final kernel (python checks; `__expected__` from expected_key). */
  checker: Checker;
}

/** A value a generated notebook must print (every value of a map, for a map). */
export interface IAskedValue {
  expected_key: string;
  /** Relative tolerance for numbers (default 0.001). */
  relative?: number;
  /** Absolute tolerance (used when larger than the relative one). */
  tolerance?: number;
}

/** A Generate notebook request that names files in the notebook's folder. */
export interface IGenerateTask extends ITaskLimits {
  id: string;
  category?: string;
  /** Files in the notebook's folder; the request names each of them. */
  files: string[];
  request: string;
  /** Values the notebook's outputs must show. */
  values?: IAskedValue[];
  /** Image outputs the notebook must show (default 0). */
  plots?: number;
}

/** A loaded set of one kind. */
export type SessionSet =
  | ({ kind: 'followup'; tasks: IFollowupTask[] } & ISetCommon)
  | ({ kind: 'fix'; tasks: IFixTask[] } & ISetCommon)
  | ({ kind: 'generate'; tasks: IGenerateTask[] } & ISetCommon);

/** What every loaded set has. */
export interface ISetCommon {
  name: string;
  description?: string;
  /** Folder of the data files (absolute). */
  dataDir: string;
  /** Expected values by key (the generator's expected.json). */
  expected: Record<string, unknown>;
}

/** What every result row has (one task, or one question). */
export interface IRowBase {
  id: string;
  category?: string;
  success: boolean;
  /** Why, in a line. */
  detail: string;
  /** How the run ended (completed, step-limit, timeout, error, a fix's status, …). */
  end: string;
  /** Model requests. */
  modelCalls: number;
  /** Cells the agent ran (a call that runs code, on a cell). */
  cellsRun: number;
  promptTokens: number;
  completionTokens: number;
  /** The endpoint reported no usage for some turns: tokens are estimates. */
  tokensEstimated: boolean;
  wallS: number;
  error?: string;
}

/** One question of a follow-up session. */
export interface IQuestionRow extends IRowBase {
  /** 1 for the session's first question, 2 for the second, … */
  position: number;
  /** The agent's final message of this turn, clipped. */
  answer: string;
  /** Numbers the answer states that nothing computed (the sidebar's "not computed" mark). */
  notComputed: string[];
}

/** A follow-up session; it succeeds when every question did. */
export interface IFollowupRow extends IRowBase {
  questions: IQuestionRow[];
}

/** A fix, judged. */
export interface IFixRow extends IRowBase {
  /** The fix workflow's status (fixed, not-fixed, stopped, failed). */
  status: string;
  attempts: number;
  turnsWithoutEdit: number;
  /** The broken cell is still there (same id) and its source changed. */
  inPlace: boolean;
  /** It ran its current source, and its outputs show no error. */
  runsClean: boolean;
  /** The task's checker passed in the final kernel. */
  checkPassed: boolean;
  /** The session's review holds the change of that cell (the diff the user sees). */
  reviewShown: boolean;
  /** Cells the agent added. */
  cellsAdded: number;
  /** Other cells of the user's that the agent edited or deleted. */
  otherCellsChanged: number;
  /** Whether the broken cell failed with an error before the fix (false: a logic error). */
  failedBefore: boolean;
}

/** A generated notebook, judged. */
export interface IGenerateRow extends IRowBase {
  /** The workflow's status (verified, unverified, stopped, failed). */
  status: string;
  verified: boolean;
  /** A markdown cell with a `# ` title. */
  titleCell: boolean;
  /** Code cells that are prose: only comments, or a SyntaxError. */
  proseCells: number;
  /** A title cell and no prose code cell. */
  markdownOk: boolean;
  /** Every named file is read by name in a code cell. */
  filesUsed: boolean;
  filesMissing: string[];
  /** Why the notebook looks like invented data (a DataFrame of literals, random data, inline CSV). */
  invented: string[];
  /** Every asked value shows in the code cells' outputs. */
  valuesFound: boolean;
  valuesMissing: string[];
  images: number;
  plotsWanted: number;
  plotsOk: boolean;
  codeCells: number;
  markdownCells: number;
  /** Code cells whose outputs end in an error (after the verification's run-all). */
  failingCells: number;
  /**
   * With a failing cell: whether the summary says that something failed
   * (null when no cell fails, or there is no summary). A summary that
   * describes the results of all steps when one failed claims what no
   * output shows.
   */
  summaryOwnsFailure: boolean | null;
  /**
   * The summary's rankings that the printed tables do not show
   * (context/rankings.ts: "East has the highest revenue" under a table
   * where North's is), each as its clause and what the table shows.
   */
  rankingsUnshown: string[];
}

/** The rows of one run of a set. */
export type SetRows = IFollowupRow[] | IFixRow[] | IGenerateRow[];
