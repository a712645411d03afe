/**
 * The local models Notebook Agent offers: instruct models with ONNX weights
 * for transformers.js and a tool-calling chat template.
 *
 * Users edit the list through the `localModels` setting: an entry with a
 * built-in id changes that model's fields, any other id adds a model (for
 * example one a site serves from its own server).
 */
import type { ToolProtocol } from '../capabilities';
import type { LocalDtype } from './device-ladder';
import type { ToolCallFamily } from './families';

/** One model of the catalogue. */
export interface ILocalModelEntry {
  /** Repository id on the hub (or under the site's model path). */
  id: string;
  /** Name shown to the user. */
  label: string;
  /** Parameters, in words ("0.6 B"). */
  params: string;
  /** How its output marks tool calls (which parser reads it). */
  family: ToolCallFamily;
  /** The weight files it ships (transformers.js `dtype`). */
  dtypes: LocalDtype[];
  /** Approximate download per dtype, in MB (weights + tokenizer). */
  sizeMB: Partial<Record<LocalDtype, number>>;
  /** Git revision of the weights (a commit, tag or branch). */
  revision: string;
  /** Whether it calls tools reliably enough to drive the agent. */
  toolsReliable: boolean;
  /** Context window, in tokens, that the agent budgets for. */
  contextTokens: number;
  /** It thinks in `<think>…</think>` before answering. */
  thinking?: boolean;
  /** Most tokens per answer (default 1024). */
  maxNewTokens?: number;
}

const ALL_DTYPES: LocalDtype[] = ['q4f16', 'q4', 'q8', 'fp16', 'fp32'];

/**
 * The built-in catalogue. Sizes are approximate q4f16/q4/q8 downloads.
 * Revisions name the branch the weights were checked on; a site that needs
 * byte-stable weights pins a commit through the `localModels` setting.
 */
export const BUILTIN_MODELS: readonly ILocalModelEntry[] = [
  {
    id: 'onnx-community/Qwen3-0.6B-ONNX',
    label: 'Qwen3 0.6B',
    params: '0.6 B',
    family: 'hermes',
    dtypes: ALL_DTYPES,
    sizeMB: { q4f16: 570, q4: 920, q8: 760 },
    revision: 'main',
    toolsReliable: true,
    contextTokens: 32768,
    thinking: true
  },
  {
    id: 'onnx-community/Qwen2.5-0.5B-Instruct',
    label: 'Qwen2.5 0.5B Instruct',
    params: '0.5 B',
    family: 'hermes',
    dtypes: ALL_DTYPES,
    sizeMB: { q4f16: 480, q4: 790, q8: 500 },
    revision: 'main',
    toolsReliable: false,
    contextTokens: 32768
  },
  {
    id: 'onnx-community/Qwen2.5-1.5B-Instruct',
    label: 'Qwen2.5 1.5B Instruct',
    params: '1.5 B',
    family: 'hermes',
    dtypes: ALL_DTYPES,
    sizeMB: { q4f16: 1200, q4: 1700, q8: 1600 },
    revision: 'main',
    toolsReliable: true,
    contextTokens: 32768
  },
  {
    id: 'onnx-community/Llama-3.2-1B-Instruct',
    label: 'Llama 3.2 1B Instruct',
    params: '1.2 B',
    family: 'llama3-json',
    dtypes: ALL_DTYPES,
    sizeMB: { q4f16: 1000, q4: 1500, q8: 1300 },
    revision: 'main',
    toolsReliable: false,
    contextTokens: 131072
  },
  {
    id: 'onnx-community/LFM2-1.2B-Tool-ONNX',
    label: 'LFM2 1.2B Tool',
    params: '1.2 B',
    family: 'lfm2',
    dtypes: ALL_DTYPES,
    sizeMB: { q4f16: 880, q4: 1200, q8: 1250 },
    revision: 'main',
    toolsReliable: true,
    contextTokens: 32768
  },
  {
    // No tool calling: it works through the text protocol (it writes
    // ```python blocks that run as cells). The fastest on the CPU (about
    // 25 tokens/s on one WebAssembly thread), for simple tasks only.
    id: 'HuggingFaceTB/SmolLM2-135M-Instruct',
    label: 'SmolLM2 135M Instruct (code blocks, no tools)',
    params: '135 M',
    family: 'plain',
    dtypes: ['q4f16', 'q4', 'q8', 'fp16', 'fp32'],
    sizeMB: { q4f16: 120, q4: 160, q8: 140 },
    revision: 'main',
    toolsReliable: false,
    contextTokens: 8192
  },
  {
    id: 'onnx-community/granite-4.0-micro-ONNX-web',
    label: 'Granite 4.0 Micro',
    params: '3 B',
    family: 'hermes',
    dtypes: ['q4f16', 'q4', 'fp16'],
    sizeMB: { q4f16: 2300, q4: 3000 },
    revision: 'main',
    toolsReliable: true,
    contextTokens: 131072
  }
];

/** The catalogue after the user's edits, and what was wrong with them. */
export interface ICatalogue {
  models: ILocalModelEntry[];
  /** One line per entry of the setting that was ignored, and why. */
  problems: string[];
}

const FAMILIES: readonly ToolCallFamily[] = [
  'hermes',
  'llama3-json',
  'lfm2',
  'plain'
];

/** Merge the `localModels` setting into the built-in list. */
export function resolveCatalogue(
  userEntries: readonly unknown[] = [],
  builtin: readonly ILocalModelEntry[] = BUILTIN_MODELS
): ICatalogue {
  const models = builtin.map(entry => ({ ...entry }));
  const problems: string[] = [];
  userEntries.forEach((raw, i) => {
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
      problems.push(`localModels[${i}]: not an object`);
      return;
    }
    const entry = raw as Partial<ILocalModelEntry>;
    if (typeof entry.id !== 'string' || !entry.id.trim()) {
      problems.push(`localModels[${i}]: "id" is missing`);
      return;
    }
    const existing = models.find(m => m.id === entry.id);
    const merged: ILocalModelEntry = {
      label: entry.id,
      params: '?',
      family: 'hermes',
      dtypes: ['q4', 'q8', 'fp32'],
      sizeMB: {},
      revision: 'main',
      toolsReliable: false,
      contextTokens: 8192,
      ...existing,
      ...entry
    } as ILocalModelEntry;
    const problem = invalid(merged);
    if (problem) {
      problems.push(`localModels[${i}] (${entry.id}): ${problem}`);
      return;
    }
    if (existing) {
      Object.assign(existing, merged);
    } else {
      models.push(merged);
    }
  });
  return { models, problems };
}

/** The smallest model that calls tools reliably (by its smallest download). */
export function defaultLocalModel(
  models: readonly ILocalModelEntry[]
): ILocalModelEntry | undefined {
  const size = (m: ILocalModelEntry) =>
    Math.min(...Object.values(m.sizeMB).filter(n => n > 0), Infinity);
  return [...models]
    .filter(m => m.toolsReliable)
    .sort((a, b) => size(a) - size(b))[0];
}

/**
 * How the agent gives `entry` its tools: through the chat template
 * (`native`) when its family marks tool calls, else the text protocol
 * (fenced ```python blocks that run as cells).
 */
export function localToolProtocol(entry: ILocalModelEntry): ToolProtocol {
  return entry.family === 'plain' ? 'text' : 'native';
}

/** The entry for `id`, else the default. */
export function findLocalModel(
  models: readonly ILocalModelEntry[],
  id: string
): ILocalModelEntry | undefined {
  return id ? models.find(m => m.id === id) : defaultLocalModel(models);
}

function invalid(entry: ILocalModelEntry): string | null {
  if (!FAMILIES.includes(entry.family)) {
    return `unknown family "${entry.family}" (one of ${FAMILIES.join(', ')})`;
  }
  if (
    !Array.isArray(entry.dtypes) ||
    !entry.dtypes.length ||
    entry.dtypes.some(d => !ALL_DTYPES.includes(d))
  ) {
    return `"dtypes" must list some of ${ALL_DTYPES.join(', ')}`;
  }
  if (typeof entry.revision !== 'string' || !entry.revision) {
    return '"revision" must be a non-empty string';
  }
  if (
    entry.maxNewTokens !== undefined &&
    !(Number.isInteger(entry.maxNewTokens) && entry.maxNewTokens > 0)
  ) {
    return '"maxNewTokens" must be a positive integer';
  }
  return null;
}
