/**
 * The toolset for small local models: the few tools a data question needs,
 * with their descriptions cut to one sentence.
 */
import { editCell, insertCell } from './notebook-edit-tools';
import { readNotebook } from './notebook-read-tools';
import { runCell } from './kernel-tools';
import type { ITool } from './registry';

/** Names of the small-model tools, in the order the model sees them. */
export const SMALL_MODEL_TOOL_NAMES = [
  'read_notebook',
  'insert_cell',
  'run_cell',
  'edit_cell'
] as const;

/** The tools for small models (same behaviour, shorter descriptions). */
export function smallModelTools(): ITool<never>[] {
  return [readNotebook, insertCell, runCell, editCell].map(tool => ({
    ...tool,
    description: firstSentence(tool.description)
  })) as ITool<never>[];
}

/** The first sentence of `text` (all of it when it has one). */
export function firstSentence(text: string): string {
  const match = /^[\s\S]*?[.!?](?=\s|$)/.exec(text.trim());
  return match ? match[0] : text.trim();
}
