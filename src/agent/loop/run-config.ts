/**
 * One run's configuration: built once when a task starts (from the
 * session's live options, session/run-setup.ts) and passed whole to the
 * loop and its steps, so no layer relays it field by field. Readonly: a
 * setting changed during a run applies to the next one.
 */
import type { IModelClient } from '../model/types';
import type { ToolRegistry } from '../tools/registry';
import { DEFAULT_RUN_SETTINGS, type IRunSettings } from '../tools/run-state';
import type { ChatMessage } from '../types';
import { DEFAULT_APPROVAL_MODE, type ApprovalMode } from './approval';
import type { IComputeFirst } from './next-step';
import { DEFAULT_MAX_STEPS } from './stop-conditions';
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
  /** How the model runs code: tool calls, or code blocks (loop/text-protocol.ts). */
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
