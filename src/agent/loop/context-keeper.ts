/**
 * The context of one run: before each model call, the request the model
 * reads. Within the window it is the conversation itself (a stable prefix
 * for prompt caches). Near the window, the older part is summarised once by
 * the same model (context/summary.ts says when and what), and the next
 * requests start with that summary; past the window, old tool outputs are
 * elided (context/history.ts), which is also the fallback when a summary
 * cannot be made (an error, an empty answer, Stop): said in the transcript,
 * and the run goes on.
 */
import { estimateTokens, fitHistory, messageTokens } from '../context/history';
import {
  contextView,
  planSummary,
  summaryLimits,
  type ISummaryLimits,
  type ISummarySlot,
  type SummaryPlan
} from '../context/summary';
import { summaryRequest } from '../context/system-prompt';
import { TurnAccumulator } from '../model/accumulator';
import { describeModelError, isAbortError } from '../model/errors';
import type { IModelClient } from '../model/types';
import type { RunState } from '../tools/run-state';
import type { AgentEvent, ChatMessage, IToolSpec } from '../types';
import { withLatestImagesOnly } from './vision';
import type { TurnItem } from './turn-items';

/** What the keeper of one run works with. */
export interface IContextKeeperOptions {
  model: IModelClient;
  tools: IToolSpec[];
  /** The model's context window, in tokens. */
  window: number;
  /** Tokens the history may take in a request (the window less what is reserved). */
  budget: number;
  /** Where the conversation's summary lives; updated in place. */
  slot: ISummarySlot;
  /** History index of the request this run works on (kept verbatim). */
  prompt: number;
  /**
   * The requests hold the first message (the system prompt) and the
   * history from this index on, never summarised (ITurnScope `historyFrom`).
   */
  from?: number;
  state: RunState;
  signal: AbortSignal;
  /** Receives the summary call's usage. */
  onEvent: (event: AgentEvent) => void;
  /** Applies what summarising produced (its line for the transcript): the turn's `applyItem`. */
  produce: (item: TurnItem) => void;
}

/** Keeps one run's requests within the window, summarising when it must. */
export class ContextKeeper {
  constructor(private readonly _options: IContextKeeperOptions) {
    this._limits = summaryLimits(_options.budget);
  }

  /** The messages of the next request for `history` (may call the model once to summarise). */
  async request(history: readonly ChatMessage[]): Promise<ChatMessage[]> {
    const { slot, prompt, from } = this._options;
    if (from !== undefined) {
      return this._fit(
        [history[0], ...history.slice(Math.max(1, from))],
        history.length
      );
    }
    if (!this._failed) {
      const plan = planSummary(history, slot.summary, prompt, this._limits);
      if (plan) {
        await this._summarise(history, plan);
      }
    }
    return this._fit(contextView(history, slot.summary), history.length);
  }

  /**
   * The request from `view` within the budget. A small model shown its own
   * guess again repeated it over the output it then computed
   * (Qwen2.5-Coder-1.5B answered 1933.18, its first guess, under a printed
   * total): a guess the compute check sent back is left out.
   */
  private _fit(view: ChatMessage[], length: number): ChatMessage[] {
    const request = fitHistory(
      withLatestImagesOnly(
        view.filter(m => !(m.role === 'assistant' && m.guess))
      ),
      this._options.budget
    );
    this._last = { request, length };
    return request;
  }

  private async _summarise(
    history: readonly ChatMessage[],
    plan: SummaryPlan
  ): Promise<void> {
    const { model, tools, signal, onEvent, slot, state } = this._options;
    const accumulator = new TurnAccumulator();
    try {
      // Same tools as every step, so the request shares their prefix; none
      // may be called.
      const stream = model.streamChat(
        { messages: this._summaryMessages(history), tools, toolChoice: 'none' },
        signal
      );
      for await (const chunk of stream) {
        accumulator.add(chunk);
      }
    } catch (error) {
      const why =
        signal.aborted || isAbortError(error)
          ? 'stopped'
          : describeModelError(error).message;
      return this._fail(why);
    }
    if (signal.aborted) {
      return this._fail('stopped');
    }
    const turn = accumulator.result();
    if (turn.usage) {
      onEvent({ type: 'usage', usage: turn.usage });
    }
    const text = this._cut(turn.text.trim());
    if (!text) {
      return this._fail('the model’s answer held no summary');
    }
    slot.summary = { text, covers: plan.covers, kept: plan.kept };
    // What the summarised steps showed is out of view: read again before edits.
    state.seen.forgetBefore(plan.covers, plan.kept);
    const after = contextView(history, slot.summary).reduce(
      (sum, message) => sum + messageTokens(message),
      0
    );
    this._options.produce({
      type: 'context-summary',
      text,
      replaced: plan.covers - 1 - plan.kept.length,
      tokensBefore: plan.viewTokens,
      tokensAfter: after
    });
  }

  /**
   * The summary request: the previous request as it was sent, the messages
   * added since, and the instruction: a pure extension of what the model
   * (and its server's prompt cache) has just read. It may be larger than a
   * step's budget: its answer is short. When it does not fit, the view
   * fitted to that size.
   */
  private _summaryMessages(history: readonly ChatMessage[]): ChatMessage[] {
    const { window, tools, budget, slot } = this._options;
    const toolTokens = estimateTokens(JSON.stringify(tools));
    const room = Math.max(
      budget,
      Math.floor(0.9 * window) - toolTokens - this._limits.maxSummary
    );
    const last = this._last;
    let base: ChatMessage[] | null = null;
    if (last && last.length <= history.length) {
      base = withLatestImagesOnly([
        ...last.request,
        ...history.slice(last.length)
      ]);
      if (base.reduce((sum, m) => sum + messageTokens(m), 0) > room) {
        base = null;
      }
    }
    base ??= fitHistory(
      withLatestImagesOnly(contextView(history, slot.summary)),
      room
    );
    const words = Math.round(0.6 * this._limits.maxSummary);
    return [
      ...base,
      { role: 'user', content: summaryRequest(words), observation: true }
    ];
  }

  /** A summary no longer than the limit (cut at a word). */
  private _cut(text: string): string {
    const chars = 4 * this._limits.maxSummary;
    if (text.length <= chars) {
      return text;
    }
    const cut = text.slice(0, chars);
    const space = cut.lastIndexOf(' ');
    return `${cut.slice(0, space > chars / 2 ? space : chars)}…`;
  }

  /** No summary this run: the transcript says so, and eliding does the work. */
  private _fail(why: string): void {
    this._failed = true;
    this._options.produce({
      type: 'notice',
      text: summaryFailedNotice(why)
    });
  }

  private readonly _limits: ISummaryLimits;
  private _failed = false;
  private _last: { request: ChatMessage[]; length: number } | null = null;
}

/** The transcript's line when earlier steps could not be summarised. */
export function summaryFailedNotice(why: string): string {
  return (
    `Earlier steps not summarised (${why.replace(/\.$/, '')}): ` +
    'older tool outputs are elided instead, so that the conversation fits the model’s context size.'
  );
}
