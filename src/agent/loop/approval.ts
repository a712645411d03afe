/**
 * The approval policy, separate from the tools: which calls the user must
 * approve before they happen, and what they see when asked.
 */
import type { ToolKind } from '../tools/registry';
import type { IInstallSource } from '../tools/install-sources';
import type { IRunsLater } from '../tools/runs-later';
import type { IToolCall } from '../types';

/**
 * - `run-everything`: never ask (except before a kernel restart,
 *   replacing a file's content, or creating a file that runs outside the
 *   kernel or steers later runs: `IRunsLater.always`);
 * - `ask-before-running`: ask before any code runs (the default);
 * - `ask-before-edits`: ask before any code runs and before any cell changes.
 */
export type ApprovalMode =
  'run-everything' | 'ask-before-running' | 'ask-before-edits';

/** The default mode. */
export const DEFAULT_APPROVAL_MODE: ApprovalMode = 'ask-before-running';

/**
 * Whether a call of this kind needs the user's approval in this mode.
 * `later`: the call leaves a file that runs or steers later (tools/runs-later.ts),
 * which asks like code that runs, and in every mode when `always`.
 */
export function needsApproval(
  kind: ToolKind,
  mode: ApprovalMode,
  later?: IRunsLater | null
): boolean {
  if (later && (later.always || mode !== 'run-everything')) {
    return true;
  }
  switch (kind) {
    case 'restart':
    case 'replace':
      return true;
    case 'run':
      return mode !== 'run-everything';
    case 'edit':
      return mode === 'ask-before-edits';
    case 'read':
      return false;
  }
}

/** What the user is asked to approve. */
export interface IApprovalRequest {
  call: IToolCall;
  kind: ToolKind;
  /** A one-line description, e.g. "Run cell 3f2a…". */
  title: string;
  /** Exactly the code (or command) that will run or be written, when there is one. */
  code: string | null;
  /** A unified diff of what the call changes (write_file replacing a file), read-only. */
  diff?: string;
  /** The cell concerned, if any. */
  cellId?: string;
  /**
   * The call leaves a file that runs or steers later, and why (the title
   * says it too): what a card, or a run nobody watches, may weigh apart.
   */
  runsLater?: IRunsLater;
  /**
   * The call's arguments (indented JSON) when it holds no code, so the
   * user sees what a tool will be given (shown read-only).
   */
  details?: string;
  /**
   * Where a `pip install` in the code fetches from besides the default
   * index, from its command line and the requirement files it names
   * (tools/install-sources.ts): none when it installs only package names.
   */
  installSources?: IInstallSource[];
}

/** The user's answer. `code`: the code as the user edited it. */
export type ApprovalDecision =
  { approved: true; code?: string } | { approved: false; reason?: string };

/** Asks the user; aborting the signal means the run was stopped. */
export type Approver = (
  request: IApprovalRequest,
  signal: AbortSignal
) => Promise<ApprovalDecision>;

/** The tool message for a rejected call. */
export function rejectionMessage(
  request: IApprovalRequest,
  reason?: string
): string {
  return (
    `The user rejected this ${request.call.name} call` +
    (reason?.trim()
      ? ` and said: "${reason.trim()}"`
      : ' without giving a reason') +
    '. Do not retry it unchanged: adjust your plan, or ask the user what they want.'
  );
}
