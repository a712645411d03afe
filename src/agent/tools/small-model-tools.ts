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

/**
 * Where a tool's first sentence names a tool the small set does not hold,
 * its own words (a small model reads a name as a tool to call).
 */
const OWN_WORDS: Readonly<Record<string, string>> = {
  edit_cell:
    'Replace the whole source of a cell you have read (with read_notebook).'
};

/** The tools for small models (same behaviour, shorter descriptions). */
export function smallModelTools(): ITool<never>[] {
  return [readNotebook, insertCell, runCell, editCell].map(tool => ({
    ...tool,
    description: OWN_WORDS[tool.name] ?? firstSentence(tool.description)
  })) as ITool<never>[];
}

/** The first sentence of `text` (all of it when it has one). */
export function firstSentence(text: string): string {
  const match = /^[\s\S]*?[.!?](?=\s|$)/.exec(text.trim());
  return match ? match[0] : text.trim();
}
