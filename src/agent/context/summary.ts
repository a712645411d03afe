/**
 * Context that lasts: when the conversation nears the model's window, its
 * older part is replaced by a summary the model writes (one extra call,
 * loop/context-keeper.ts), instead of only eliding old tool outputs.
 *
 * Cache-friendly by construction: the summary replaces a prefix once, in a
 * chunk, at a threshold with headroom, so the requests of the next steps all
 * start with the same messages (system prompt, summary, kept request, and the
 * steps after it) and extend each other, as they did before the summary.
 * This module is the policy (pure): what the model reads given a summary,
 * and when and where to cut for a new one.
 */
import type { ChatMessage } from '../types';
import { messageTokens, estimateTokens, type TokenEstimator } from './history';
import { SUMMARY_REQUEST_START, summaryContext } from './system-prompt';
import { isUsableSummary, type IContextSummary } from './summary-slot';

export {
  isUsableSummary,
  type IContextSummary,
  type ISummarySlot
} from './summary-slot';

/** The thresholds of the policy, in tokens, for a history budget. */
export interface ISummaryLimits {
  /** A view larger than this is summarised (when there is a chunk worth it). */
  trigger: number;
  /** The latest messages kept verbatim after a summary, at most (the last round always). */
  keep: number;
  /** Summarise only when at least this much would be replaced: no summary every step. */
  minChunk: number;
  /** The longest summary accepted (longer ones are cut). */
  maxSummary: number;
}

/**
 * Summarise at 75 % of the budget, keep at most 20 % of it verbatim and
 * write at most 10 % (200 to 1500 tokens): after a summary the view is about half the budget, so
 * several steps reuse the same prefix before the next one.
 */
export function summaryLimits(budget: number): ISummaryLimits {
  return {
    trigger: Math.floor(0.75 * budget),
    keep: Math.floor(0.2 * budget),
    minChunk: Math.floor(0.25 * budget),
    maxSummary: Math.min(1500, Math.max(200, Math.floor(0.1 * budget)))
  };
}

/** The message that carries the summary. */
export function summaryMessage(text: string): ChatMessage {
  return { role: 'user', content: summaryContext(text), observation: true };
}

/**
 * What the model reads of `history`: the system prompt, the summary, the
 * kept request and everything after the summarised part; the history
 * itself when there is no (usable) summary.
 */
export function contextView(
  history: readonly ChatMessage[],
  summary: IContextSummary | null
): ChatMessage[] {
  if (!isUsableSummary(summary, history.length) || !history.length) {
    return history.slice();
  }
  return [
    history[0],
    summaryMessage(summary.text),
    ...summary.kept.map(i => history[i]),
    ...history.slice(summary.covers)
  ];
}

/** The history indices behind `contextView`'s messages (-1: the summary). */
function viewIndices(
  length: number,
  summary: IContextSummary | null
): number[] {
  const all = Array.from({ length }, (_, i) => i);
  if (!isUsableSummary(summary, length) || !length) {
    return all;
  }
  return [0, -1, ...summary.kept, ...all.slice(summary.covers)];
}

/** A new summary's extent (its text comes from the model). */
export type SummaryPlan = Omit<IContextSummary, 'text'> & {
  /** Tokens of the view now, and of the messages the summary replaces. */
  viewTokens: number;
  replacedTokens: number;
};

/**
 * Whether to summarise before the next request, and what: null while the
 * view fits under the trigger, or when too little could be replaced.
 * `prompt` is the index of the request being worked on (kept verbatim).
 * The cut keeps the longest tail of recent messages within `keep` tokens
 * (never starting on a tool result, whose call would be gone), and always
 * the last assistant turn and what came after it: the model has not acted
 * on those results yet. Deterministic: the same history and summary give
 * the same plan.
 */
export function planSummary(
  history: readonly ChatMessage[],
  current: IContextSummary | null,
  prompt: number,
  limits: ISummaryLimits,
  estimate: TokenEstimator = estimateTokens
): SummaryPlan | null {
  const view = contextView(history, current);
  const indices = viewIndices(history.length, current);
  const cost = view.map(m => messageTokens(m, estimate));
  const viewTokens = cost.reduce((a, b) => a + b, 0);
  if (viewTokens <= limits.trigger) {
    return null;
  }
  const start = isUsableSummary(current, history.length) ? current.covers : 1;
  let last = history.length - 1;
  while (last > prompt && history[last].role !== 'assistant') {
    last -= 1;
  }
  const latest = Math.max(start, Math.min(last, history.length - 1));
  // Candidate cuts: history indices in [start, latest] not on a tool result.
  let covers = latest;
  let tail = 0;
  for (let k = history.length - 1; k >= start; k--) {
    tail += messageTokens(history[k], estimate);
    if (k <= latest && history[k].role !== 'tool') {
      if (tail > limits.keep && k < latest) {
        break;
      }
      covers = k;
    }
  }
  while (covers > start && history[covers].role === 'tool') {
    covers -= 1;
  }
  const kept = prompt >= 1 && prompt < covers ? [prompt] : [];
  let replacedTokens = 0;
  indices.forEach((index, i) => {
    if (index !== 0 && index < covers && !kept.includes(index)) {
      replacedTokens += cost[i];
    }
  });
  if (replacedTokens < limits.minChunk) {
    return null;
  }
  return { covers, kept, viewTokens, replacedTokens };
}

/** Whether `request` is a summary request (for scripted models in tests and the bench). */
export function isSummaryRequest(request: {
  messages: readonly ChatMessage[];
}): boolean {
  const last = request.messages[request.messages.length - 1];
  return (
    last?.role === 'user' &&
    !!last.observation &&
    last.content.startsWith(SUMMARY_REQUEST_START)
  );
}
