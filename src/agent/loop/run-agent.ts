/**
 * The agent loop: plan, act, observe, refine.
 *
 * Call the model with the conversation and the tools; run every tool call it
 * asks for and append the observations as tool messages; repeat until it
 * answers without tool calls, the user stops it, or the step limit is hit.
 */
import { TurnAccumulator } from '../model/accumulator';
import { describeModelError, isAbortError } from '../model/errors';
import type { IModelClient } from '../model/types';
import type { INotebookPort } from '../ports';
import type { ToolRegistry } from '../tools/registry';
import type {
  AgentEvent,
  ChatMessage,
  IAgentError,
  RunEndReason
} from '../types';
import {
  DEFAULT_MAX_STEPS,
  isFinalAnswer,
  reachedStepLimit
} from './stop-conditions';

/** Everything one run needs. */
export interface IRunAgentOptions {
  model: IModelClient;
  tools: ToolRegistry;
  notebook: INotebookPort;
  /** The conversation so far, ending with the user's new message. Appended to in place. */
  messages: ChatMessage[];
  /** Aborting stops the model stream and interrupts a running cell. */
  signal: AbortSignal;
  /** Receives progress as it happens. */
  onEvent: (event: AgentEvent) => void;
  maxSteps?: number;
  /** Clock for tool durations (tests inject one). */
  now?: () => number;
}

/** How the run ended. */
export interface IRunOutcome {
  reason: RunEndReason;
  steps: number;
  error?: IAgentError;
}

/** Run the agent until it answers, is stopped, or runs out of steps. */
export async function runAgent(
  options: IRunAgentOptions
): Promise<IRunOutcome> {
  const { model, tools, notebook, messages, signal, onEvent } = options;
  const maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS;
  const now = options.now ?? (() => Date.now());
  const end = (outcome: IRunOutcome): IRunOutcome => {
    onEvent({ type: 'end', reason: outcome.reason, error: outcome.error });
    return outcome;
  };

  let step = 0;
  while (!reachedStepLimit(step, maxSteps)) {
    if (signal.aborted) {
      return end({ reason: 'stopped', steps: step });
    }
    step += 1;
    onEvent({ type: 'step-start', step });

    const accumulator = new TurnAccumulator();
    try {
      const stream = model.streamChat({ messages, tools: tools.specs }, signal);
      for await (const chunk of stream) {
        const text = accumulator.add(chunk);
        if (text) {
          onEvent({ type: 'text-delta', text });
        }
      }
    } catch (error) {
      if (signal.aborted || isAbortError(error)) {
        keepPartialAnswer(messages, accumulator.result().text);
        return end({ reason: 'stopped', steps: step });
      }
      return end({
        reason: 'error',
        steps: step,
        error: describeModelError(error)
      });
    }

    const turn = accumulator.result();
    if (turn.usage) {
      onEvent({ type: 'usage', usage: turn.usage });
    }
    messages.push({
      role: 'assistant',
      content: turn.text || null,
      ...(turn.toolCalls.length ? { toolCalls: turn.toolCalls } : {})
    });
    if (isFinalAnswer(turn)) {
      return end({ reason: 'completed', steps: step });
    }

    for (const call of turn.toolCalls) {
      // Every tool call must get a tool message, even when stopped, or the
      // conversation is invalid for the next request.
      if (signal.aborted) {
        messages.push({
          role: 'tool',
          toolCallId: call.id,
          content: 'Not run: the user stopped the agent.'
        });
        continue;
      }
      onEvent({ type: 'tool-call', call });
      const started = now();
      const result = await tools.call(call, { notebook, signal });
      onEvent({
        type: 'tool-result',
        callId: call.id,
        result,
        durationMs: now() - started
      });
      messages.push({
        role: 'tool',
        toolCallId: call.id,
        content: result.output
      });
    }
  }
  return end({ reason: 'step-limit', steps: step });
}

function keepPartialAnswer(messages: ChatMessage[], text: string): void {
  if (text) {
    messages.push({
      role: 'assistant',
      content: `${text}\n\n[stopped by the user]`
    });
  }
}
