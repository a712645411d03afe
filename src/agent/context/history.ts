/**
 * Per-turn context budget: fit the conversation into the model's context size.
 *
 * Old tool outputs are the cheapest thing to lose (the model already acted
 * on them), so they go first, oldest first, each replaced by a one-line stub.
 * System and user messages are never rewritten. While the history fits,
 * nothing changes at all: providers cache the prompt prefix, and rewriting
 * an early message on every turn would defeat that cache.
 */
import type { ChatMessage } from '../types';

/** Estimates the tokens of a text. */
export type TokenEstimator = (text: string) => number;

/** Rough and tokenizer-free: about four characters per token. */
export const estimateTokens: TokenEstimator = text =>
  Math.ceil(text.length / 4);

// Role markers and separators each message costs in the chat template.
const MESSAGE_OVERHEAD = 4;
const STUB_LINE = 100;

/** What one attached image costs, roughly (a downscaled image, high detail). */
export const IMAGE_TOKENS = 800;

/** Tokens of one message, tool calls and images included. */
export function messageTokens(
  message: ChatMessage,
  estimate: TokenEstimator = estimateTokens
): number {
  let tokens = MESSAGE_OVERHEAD + estimate(message.content ?? '');
  if (message.role === 'user') {
    tokens += (message.images?.length ?? 0) * IMAGE_TOKENS;
  }
  if (message.role === 'assistant') {
    for (const call of message.toolCalls ?? []) {
      tokens += MESSAGE_OVERHEAD + estimate(call.name + call.arguments);
    }
  }
  return tokens;
}

/** The stub that replaces an old tool output. */
export function elidedToolOutput(toolName: string, content: string): string {
  const first = content.split('\n').find(line => line.trim()) ?? '';
  const line =
    first.length > STUB_LINE ? first.slice(0, STUB_LINE) : first.trimEnd();
  return `[output of ${toolName} elided to save context: ${line}…]`;
}

// Array#findLastIndex is ES2023; the core targets ES2022.
function lastIndex<T>(items: readonly T[], test: (item: T) => boolean): number {
  for (let i = items.length - 1; i >= 0; i--) {
    if (test(items[i])) {
      return i;
    }
  }
  return -1;
}

/**
 * The tool name behind each tool message, by index: the call with that id in
 * the nearest assistant message before it. Ids are not unique everywhere
 * (some servers and scripted models reuse `call_0` every turn), and a stub
 * that named another turn's tool would change as the history grows, which
 * breaks the prompt-cache prefix.
 */
function toolNames(messages: readonly ChatMessage[]): Map<number, string> {
  const latest = new Map<string, string>();
  const names = new Map<number, string>();
  messages.forEach((message, i) => {
    if (message.role === 'assistant') {
      for (const call of message.toolCalls ?? []) {
        latest.set(call.id, call.name);
      }
    } else if (message.role === 'tool') {
      const name = latest.get(message.toolCallId);
      if (name) {
        names.set(i, name);
      }
    }
  });
  return names;
}

/**
 * A copy of `messages` that fits `budget` tokens, changed as little as
 * possible, deterministically:
 * 1. tool outputs before the latest round of tool calls are replaced by a
 *    short stub, oldest first, until the rest fits;
 * 2. then the latest round's outputs, oldest first;
 * 3. if that is still too much, the oldest messages are dropped, keeping
 *    the system messages, the last user message and as many of the latest
 *    messages as fit (never a tool result without its call), and the latest
 *    round's outputs are restored where they fit again.
 * When the history already fits, the same messages are returned unchanged.
 */
export function fitHistory(
  messages: readonly ChatMessage[],
  budget: number,
  estimate: TokenEstimator = estimateTokens
): ChatMessage[] {
  const out = messages.slice();
  const cost = out.map(m => messageTokens(m, estimate));
  let total = cost.reduce((a, b) => a + b, 0);
  if (total <= budget) {
    return out;
  }
  const names = toolNames(out);
  const lastCall = lastIndex(
    out,
    m => m.role === 'assistant' && (m.toolCalls?.length ?? 0) > 0
  );
  const toolIndices = out.flatMap((m, i) => (m.role === 'tool' ? [i] : []));
  const older = toolIndices.filter(i => i < lastCall);
  const latest = toolIndices.filter(i => i > lastCall);
  const originals = new Map<number, ChatMessage>();

  for (const i of [...older, ...latest]) {
    if (total <= budget) {
      return out;
    }
    const message = out[i];
    if (message.role !== 'tool') {
      continue;
    }
    const stub: ChatMessage = {
      ...message,
      content: elidedToolOutput(names.get(i) ?? 'a tool', message.content)
    };
    const stubCost = messageTokens(stub, estimate);
    if (stubCost < cost[i]) {
      originals.set(i, message);
      out[i] = stub;
      total += stubCost - cost[i];
      cost[i] = stubCost;
    }
  }
  if (total <= budget) {
    return out;
  }
  return dropOldest(out, cost, budget, originals, latest, estimate);
}

/** Step 3 of `fitHistory`: keep system + last user + the latest messages. */
function dropOldest(
  out: ChatMessage[],
  cost: number[],
  budget: number,
  originals: Map<number, ChatMessage>,
  latest: number[],
  estimate: TokenEstimator
): ChatMessage[] {
  const lastUser = lastIndex(out, m => m.role === 'user');
  const pinned = (i: number) => out[i].role === 'system' || i === lastUser;
  // suffix[k]: cost of out[k..] ; pinnedBefore[k]: cost of pinned in out[..k).
  const suffix = new Array<number>(out.length + 1).fill(0);
  for (let i = out.length - 1; i >= 0; i--) {
    suffix[i] = suffix[i + 1] + cost[i];
  }
  const pinnedBefore = new Array<number>(out.length + 1).fill(0);
  for (let i = 0; i < out.length; i++) {
    pinnedBefore[i + 1] = pinnedBefore[i] + (pinned(i) ? cost[i] : 0);
  }
  // A kept tail must not start with a tool result: its call would be gone.
  const starts = out.flatMap((m, i) => (m.role === 'tool' ? [] : [i]));
  const start =
    starts.find(k => pinnedBefore[k] + suffix[k] <= budget) ??
    starts[starts.length - 1] ??
    0;
  const kept = out.flatMap((m, i) => (i >= start || pinned(i) ? [i] : []));
  let total = kept.reduce((sum, i) => sum + cost[i], 0);
  const result = new Map(kept.map(i => [i, out[i]]));
  // With the old messages gone, the latest outputs may fit whole again.
  for (const i of latest) {
    const original = originals.get(i);
    if (original && result.has(i)) {
      const extra = messageTokens(original, estimate) - cost[i];
      if (total + extra <= budget) {
        result.set(i, original);
        total += extra;
      }
    }
  }
  return kept.map(i => result.get(i) as ChatMessage);
}
