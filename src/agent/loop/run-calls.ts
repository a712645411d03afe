/**
 * The loop's tool steps: run a turn's calls in order (each through
 * execute-tool-call.ts, which asks for approval where the tool says so),
 * or refuse them all as a repeat. Every call gets its tool message, or the
 * conversation is invalid for the next request.
 */
import type { IImageAttachment, IToolCall } from '../types';
import { executeToolCall } from './execute-tool-call';
import type { IRunContext } from './turn';
import { imageObservation } from './vision';

/** Answer each call with `refusal` (shown as a failed card), running none. */
export function refuseCalls(
  run: Pick<IRunContext, 'config' | 'turn'>,
  calls: ReadonlyArray<IToolCall>,
  refusal: string
): void {
  const { tools } = run.config;
  const { conversation, onEvent } = run.turn;
  for (const call of calls) {
    onEvent({ type: 'tool-call', call, title: tools.titleOf(call) });
    onEvent({
      type: 'tool-result',
      callId: call.id,
      result: { ok: false, output: refusal },
      durationMs: 0
    });
    conversation.appendMessages({
      role: 'tool',
      toolCallId: call.id,
      content: refusal
    });
  }
}

/**
 * Run the calls in order, each answered by a tool message (calls after a
 * stop or a repeated failure with why they did not run), then attach the
 * images they gave for a vision model. True when a failure repeated.
 */
export async function runCalls(
  run: IRunContext,
  calls: ReadonlyArray<IToolCall>
): Promise<boolean> {
  const { config, turn, state, failures, now } = run;
  const { tools } = config;
  const { conversation, signal, onEvent } = turn;
  let repeated = false;
  const images: IImageAttachment[] = [];
  // Cells these calls read or write were seen at this step of the history.
  state.seen.position = conversation.messages.length - 1;
  for (const call of calls) {
    // Every tool call must get a tool message, even when stopped, or the
    // conversation is invalid for the next request.
    if (signal.aborted || repeated) {
      const why = repeated
        ? 'the same error repeated'
        : 'the user stopped the agent';
      conversation.appendMessages({
        role: 'tool',
        toolCallId: call.id,
        content: `Not run: ${why}.`
      });
      continue;
    }
    onEvent({ type: 'tool-call', call, title: tools.titleOf(call) });
    const started = now();
    // The card's duration is the call's own: the time the user took to
    // approve it is not part of it.
    let waited = 0;
    const ask = turn.approve;
    const result = await executeToolCall(
      call,
      run,
      ask &&
        (async (request, abort) => {
          const asked = now();
          try {
            return await ask(request, abort);
          } finally {
            waited += now() - asked;
          }
        })
    );
    onEvent({
      type: 'tool-result',
      callId: call.id,
      result,
      durationMs: Math.max(0, now() - started - waited)
    });
    conversation.appendMessages({
      role: 'tool',
      toolCallId: call.id,
      content: result.output
    });
    images.push(...(result.images ?? []));
    repeated = failures.record(result.ok, result.output, tools.runsCode(call));
  }
  const observation = config.vision
    ? await imageObservation(images, config.vision)
    : null;
  if (observation) {
    conversation.appendMessages(observation);
  }
  return repeated;
}
