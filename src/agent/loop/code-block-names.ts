/**
 * The names of the tools a text-protocol code block becomes
 * (./code-block-tools.ts), without the tools: the text protocol knows a
 * code block's call by its name and need not load the tools, the kernel
 * tools behind them, or the observations.
 */

/** The tool a code block becomes. */
export const TEXT_PROTOCOL_TOOL = 'add_and_run_cell';

/** The tool a code block becomes in a turn that rewrites one cell. */
export const REWRITE_TOOL = 'rewrite_and_run_cell';

/** Whether a call is a code block of the text protocol (its code is on the card). */
export function isCodeBlockTool(name: string): boolean {
  return name === TEXT_PROTOCOL_TOOL || name === REWRITE_TOOL;
}
