/**
 * The `@` picker's logic, without the DOM: finding the `@query` being typed,
 * the options it offers (the notebook's cells, variables its executed cells
 * assigned), filtering and ranking them, and the prompt text after a pick.
 */
import type { TranslationBundle } from '@jupyterlab/translation';
import { untranslated } from '../common/trans';

/** A cell the picker offers. */
export interface ICellChoice {
  id: string;
  /** 1-based position in the notebook ("Cell 3"). */
  index: number;
  type: string;
  source: string;
}

/** One option of the picker. */
export type MentionOption =
  | { kind: 'cell'; key: string; cell: ICellChoice; label: string }
  | { kind: 'variable'; key: string; name: string; label: string };

/** The `@query` the caret is in: where its `@` is, and what follows it. */
export interface IMention {
  start: number;
  query: string;
}

/** Most options shown at once. */
export const MAX_MENTION_OPTIONS = 20;

/**
 * The mention being typed at `caret`: an `@` at the start or after a space or
 * bracket, then word characters up to the caret (punctuation ends it, as in
 * "What is @df?"). Null when there is none.
 */
export function activeMention(text: string, caret: number): IMention | null {
  const match = /(?:^|[\s([{,])@(\w*)$/u.exec(text.slice(0, caret));
  if (!match) {
    return null;
  }
  return { start: caret - match[1].length - 1, query: match[1] };
}

/** "Cell 3: first line of source…" (the first line that has text). */
export function cellLabel(
  cell: ICellChoice,
  trans: TranslationBundle = untranslated
): string {
  const line =
    cell.source
      .split('\n')
      .map(l => l.trim())
      .find(Boolean) ?? '';
  const shown = line.length > 60 ? `${line.slice(0, 59)}…` : line;
  const text = shown || trans.__('(empty)');
  return cell.type === 'code'
    ? trans.__('Cell %1: %2', cell.index, text)
    : trans.__('Cell %1 (%2): %3', cell.index, cell.type, text);
}

const ASSIGNMENT =
  /^([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s*(?::[^=]*)?=(?!=)/;
const IMPORT_AS = /^(?:from\s+\S+\s+)?import\s+.*\bas\s+([A-Za-z_]\w*)\s*$/;

/**
 * Names that top-level statements of `sources` assign (`x = …`, `a, b = …`,
 * `import … as x`), in order of first appearance: a cheap guess at the
 * kernel's variables that needs no kernel call. Private names are left out.
 */
export function assignedNames(sources: ReadonlyArray<string>): string[] {
  const names: string[] = [];
  for (const source of sources) {
    for (const line of source.split('\n')) {
      const assigned = ASSIGNMENT.exec(line)?.[1].split(/\s*,\s*/) ?? [];
      const imported = IMPORT_AS.exec(line)?.[1];
      for (const name of imported ? [...assigned, imported] : assigned) {
        if (!name.startsWith('_') && !names.includes(name)) {
          names.push(name);
        }
      }
    }
  }
  return names;
}

/** How well `option` matches `query` (lower is better; null: no match). */
function rank(option: MentionOption, query: string): number | null {
  if (!query) {
    return 0;
  }
  if (option.kind === 'variable') {
    const name = option.name.toLowerCase();
    return name === query
      ? 0
      : name.startsWith(query)
        ? 1
        : name.includes(query)
          ? 2
          : null;
  }
  const { cell } = option;
  const index = String(cell.index);
  const number = query.replace(/^cell\s*/, '');
  if (/^\d+$/.test(number)) {
    // A number names a cell by its position, not by digits in its code.
    return number === index ? 0 : index.startsWith(number) ? 1 : null;
  }
  const label = option.label.toLowerCase();
  if (label.includes(query)) {
    return 2;
  }
  return cell.source.toLowerCase().includes(query) ? 3 : null;
}

/**
 * The options for `query`: the variables, then the cells, best matches
 * first (each kind keeps its order among equals), at most `limit`.
 */
export function mentionOptions(
  cells: ReadonlyArray<ICellChoice>,
  variables: ReadonlyArray<string>,
  query: string,
  trans: TranslationBundle = untranslated,
  limit = MAX_MENTION_OPTIONS
): MentionOption[] {
  const all: MentionOption[] = [
    ...variables.map(name => ({
      kind: 'variable' as const,
      key: `variable:${name}`,
      name,
      label: trans.__('Variable %1', name)
    })),
    ...cells.map(cell => ({
      kind: 'cell' as const,
      key: `cell:${cell.id}`,
      cell,
      label: cellLabel(cell, trans)
    }))
  ];
  const q = query.toLowerCase();
  return all
    .map((option, order) => ({ option, order, score: rank(option, q) }))
    .filter(
      (
        entry
      ): entry is { option: MentionOption; order: number; score: number } =>
        entry.score !== null
    )
    .sort((a, b) => a.score - b.score || a.order - b.order)
    .slice(0, limit)
    .map(entry => entry.option);
}

/**
 * The prompt after picking `option` for `mention` (the caret at `caret`): a
 * variable becomes `@name `, a cell's `@query` is removed (it becomes a chip).
 * Returns the new text and where the caret goes.
 */
export function applyMention(
  text: string,
  mention: IMention,
  caret: number,
  option: MentionOption
): { text: string; caret: number } {
  const before = text.slice(0, mention.start);
  let after = text.slice(caret);
  if (option.kind === 'variable') {
    const inserted = `@${option.name} `;
    after = after.replace(/^ /, '');
    return {
      text: before + inserted + after,
      caret: before.length + inserted.length
    };
  }
  // One space is enough where the mention was.
  if ((before === '' || /\s$/.test(before)) && /^\s/.test(after)) {
    after = after.slice(1);
  }
  return { text: before + after, caret: before.length };
}

/** Where the picker's options come from (the active notebook). */
export interface IMentionSource {
  /** The active notebook's cells, in order (empty without one). */
  cells(): ICellChoice[];
  /** Variables it probably has (cheap: no kernel call). */
  variables(): string[];
  /**
   * The kernel's own variables, asked once each time the picker opens; null
   * when it cannot tell (not an IPython kernel, busy, no kernel).
   */
  kernelVariables?(): Promise<string[] | null>;
}

/** Most variables the kernel's list contributes. */
const MAX_KERNEL_VARIABLES = 200;

/**
 * The picker's variables: the guesses the kernel confirms, in the notebook's
 * order, then the kernel's other names; the guesses alone when the kernel
 * did not answer. A guess the kernel lacks (deleted, never run) is dropped.
 */
export function mergeVariables(
  guessed: ReadonlyArray<string>,
  kernel: ReadonlyArray<string> | null
): string[] {
  if (!kernel) {
    return [...guessed];
  }
  const known = new Set(kernel);
  const confirmed = guessed.filter(name => known.has(name));
  const others = kernel
    .filter(name => !confirmed.includes(name))
    .slice(0, MAX_KERNEL_VARIABLES);
  return [...confirmed, ...others];
}

/** The identifiers in the text/plain form of a Python list of names (`['df', 'total']`). */
export function parseNameList(repr: string): string[] {
  const names: string[] = [];
  for (const match of repr.matchAll(/'([A-Za-z_][A-Za-z0-9_]*)'/g)) {
    if (!names.includes(match[1])) {
      names.push(match[1]);
    }
  }
  return names;
}
