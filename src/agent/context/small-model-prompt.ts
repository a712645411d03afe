/**
 * The prompt profile for small local models (under a few billion
 * parameters): a short system prompt and few tools, because such models
 * lose track of long instructions and pick wrong tools from long lists.
 * Remote models keep `systemPrompt` (system-prompt.ts) unchanged.
 */

/** Bump when the wording changes. */
export const SMALL_PROMPT_VERSION = 1;

/** Options of the small-model prompt. */
export interface ISmallModelPromptOptions {
  /** Path of the notebook the agent works in. */
  notebookPath: string;
  /** Names of the tools offered. */
  toolNames?: readonly string[];
}

/** Build the short system prompt for a small model. */
export function smallModelSystemPrompt(
  options: ISmallModelPromptOptions
): string {
  const lines = [
    `You are a data assistant in the Jupyter notebook "${options.notebookPath}".`,
    'To answer: insert a code cell with insert_cell, run it with run_cell, read the output, then answer with the numbers it printed.',
    'If the code fails, fix it with edit_cell and run it again.',
    'Never change the user’s cells. Keep answers short.'
  ];
  if (options.toolNames?.length) {
    lines.push(`Tools: ${options.toolNames.join(', ')}.`);
  }
  return lines.join('\n');
}
