/**
 * The loop's model step: stream one turn of the model, showing its text as
 * it comes; a turn cut off (Stop, an error) keeps what was said, with why.
 */
import { TurnAccumulator, type IAssistantTurn } from '../model/accumulator';
import { describeModelError, isAbortError } from '../model/errors';
import { RETRY_TEMPERATURE } from '../model/sampling';
import type { ChatMessage } from '../types';
import type { IConversation } from './conversation';
import type { IRequestShape } from './next-step';
import type { NextStep } from './steps';
import type { IRunContext } from './turn';

/** Longest stretch of stream handling before giving the event loop a turn. */
const YIELD_EVERY_MS = 25;

/** A model call's result: its turn, or the step that ends the run. */
export type ModelStep =
  | { kind: 'turn'; turn: IAssistantTurn }
  | { kind: 'end'; stop: Extract<NextStep, { kind: 'stop' }> };

/** Stream one turn of the model, for the request `request` gives. */
export async function callModel(
  run: Pick<IRunContext, 'config' | 'turn'>,
  request: () => Promise<ChatMessage[]>,
  shape: IRequestShape
): Promise<ModelStep> {
  const { model, tools } = run.config;
  const { conversation, signal, onEvent } = run.turn;
  const accumulator = new TurnAccumulator();
  const stopped = (): ModelStep => {
    keepPartialAnswer(conversation, accumulator.result().text);
    return { kind: 'end', stop: { kind: 'stop', reason: 'stopped' } };
  };
  try {
    const sent = await request();
    if (signal.aborted) {
      return { kind: 'end', stop: { kind: 'stop', reason: 'stopped' } };
    }
    const stream = model.streamChat(
      {
        messages: sent,
        tools: tools.specs,
        ...(shape.forceCall ? { toolChoice: 'required' as const } : {}),
        ...(shape.sampled ? { temperature: RETRY_TEMPERATURE } : {}),
        ...(shape.prefill ? { prefill: shape.prefill } : {})
      },
      signal
    );
    let busySince = Date.now();
    for await (const chunk of stream) {
      const text = accumulator.add(chunk);
      if (text) {
        onEvent({ type: 'text-delta', text });
      }
      // A burst of chunks is processed without leaving the microtask queue;
      // yield now and then so the page can paint and stay responsive.
      if (Date.now() - busySince > YIELD_EVERY_MS) {
        await new Promise(resolve => setTimeout(resolve, 0));
        busySince = Date.now();
      }
    }
  } catch (error) {
    if (signal.aborted || isAbortError(error)) {
      return stopped();
    }
    const described = describeModelError(error);
    keepPartialAnswer(
      conversation,
      accumulator.result().text,
      described.message
    );
    return {
      kind: 'end',
      stop: { kind: 'stop', reason: 'error', error: described }
    };
  }
  if (signal.aborted) {
    // The SDK ends a stream quietly when it is aborted: what came so far
    // is a cut-off answer, not a final one, and its calls must not run.
    return stopped();
  }
  const turn = accumulator.result();
  if (turn.usage) {
    onEvent({ type: 'usage', usage: turn.usage });
  }
  return { kind: 'turn', turn };
}

/** The conversation's message for a model's turn. */
export function assistantMessage(turn: IAssistantTurn): ChatMessage {
  return {
    role: 'assistant',
    content: turn.text || null,
    ...(turn.toolCalls.length ? { toolCalls: turn.toolCalls } : {})
  };
}

/** Keep what the model said before it was cut off, with why, in the conversation. */
function keepPartialAnswer(
  conversation: IConversation,
  text: string,
  why = 'stopped by the user'
): void {
  if (text) {
    conversation.appendMessages({
      role: 'assistant',
      content: `${text}\n\n[${why}]`
    });
  }
}
