/**
 * Inline completion's settings (in schema/plugin.json, beside the agent's):
 * where suggestions come from, which model, how long typing must pause, how
 * long a suggestion may be, and whether a next cell is suggested after a run.
 */
import type { ISettingRegistry } from '@jupyterlab/settingregistry';
import type { CompletionSourceKind } from '../../agent/completion/completion-policy';

/** The settings inline completion reads. */
export interface ICompletionSettings {
  source: CompletionSourceKind;
  /** '' = the agent's model (endpoint), or the local model (local). */
  model: string;
  debounceMs: number;
  maxTokens: number;
  nextCell: boolean;
}

/** The defaults, as in the schema. */
export const DEFAULT_COMPLETION_SETTINGS: ICompletionSettings = {
  source: 'auto',
  model: '',
  debounceMs: 250,
  maxTokens: 64,
  nextCell: true
};

const SOURCES: ReadonlyArray<CompletionSourceKind> = [
  'auto',
  'off',
  'endpoint',
  'local'
];

/** Read the settings, falling back to the defaults for values out of range. */
export function readCompletionSettings(
  settings: ISettingRegistry.ISettings
): ICompletionSettings {
  const value = (key: string): unknown => settings.composite[key];
  const source = value('inlineCompletion');
  const model = value('inlineCompletionModel');
  const debounce = value('inlineCompletionDebounceMs');
  const maxTokens = value('inlineCompletionMaxTokens');
  const nextCell = value('nextCellSuggestion');
  const d = DEFAULT_COMPLETION_SETTINGS;
  return {
    source: SOURCES.includes(source as CompletionSourceKind)
      ? (source as CompletionSourceKind)
      : d.source,
    model: typeof model === 'string' ? model.trim() : d.model,
    debounceMs:
      typeof debounce === 'number' && debounce >= 0 && debounce <= 5000
        ? debounce
        : d.debounceMs,
    maxTokens:
      typeof maxTokens === 'number' && maxTokens >= 1 && maxTokens <= 512
        ? Math.round(maxTokens)
        : d.maxTokens,
    nextCell: typeof nextCell === 'boolean' ? nextCell : d.nextCell
  };
}
