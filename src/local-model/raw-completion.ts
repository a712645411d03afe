/**
 * An inline completion in the worker: the prompt as raw text (FIM tokens as
 * their ids, no chat template), greedy, cut at the request's stop strings
 * and at any special token.
 *
 * The chat's KV cache is neither used nor changed: the completion runs from
 * an empty cache, and generate() disposes the one it built (no
 * `past_key_values` in, no `return_dict_in_generate`). A completion's prompt
 * (code around the cursor) shares no prefix with the chat's (the template's
 * system prompt), so the chat cache could not serve it; and resetting it
 * instead would make the agent's next turn read its whole prompt again
 * (seconds, on the CPU) after every keystroke's completion. Kept apart, the
 * next turn reuses its cache as if no completion had run.
 */
import type {
  WorkerEvent,
  WorkerRequest
} from '../agent/model/local/worker-protocol';
import type { BeginGeneration } from './generation';
import type { ILoadedModel } from './model-loading';
import { encodeRaw, endTokenIds } from './prompt-encoding';
import { StopStringCutter } from './stop-strings';

type CompleteRequest = Extract<WorkerRequest, { type: 'complete' }>;

/** Complete the request's prompt, posting `prompt`, its text and `done`. */
export async function completeRawText(
  { tokenizer, model }: ILoadedModel,
  request: CompleteRequest,
  post: (event: WorkerEvent) => void,
  begin: BeginGeneration
): Promise<void> {
  const started = Date.now();
  const inputs = encodeRaw(tokenizer, request.prompt);
  const promptTokens = inputs.input_ids.dims[inputs.input_ids.dims.length - 1];
  post({
    type: 'prompt',
    id: request.id,
    promptTokens,
    reusedTokens: 0
  });
  const run = begin(request.id, 'complete', started);
  const ends = endTokenIds(tokenizer, model);
  const cutter = new StopStringCutter(request.stop);
  const ids: bigint[] = [];
  let ended = false;
  let prompt = true;
  // generate() calls put() with the prompt, then with each new token,
  // before it checks the stopping criteria: a stop found here stops it
  // after this token.
  const streamer = {
    put: (value: bigint[][]) => {
      if (prompt) {
        prompt = false;
        return;
      }
      run.counted();
      const token = value[0]?.[0];
      if (ended || token === undefined) {
        return;
      }
      if (ends.has(Number(token))) {
        ended = true;
        run.stopping.interrupt();
        return;
      }
      ids.push(token);
      run.send(
        cutter.update(tokenizer.decode(ids, { skip_special_tokens: false }))
      );
      if (cutter.stopped) {
        ended = true;
        run.stopping.interrupt();
      }
    },
    end: () => undefined
  };
  try {
    await model.generate({
      ...inputs,
      max_new_tokens: request.maxNewTokens,
      do_sample: false,
      streamer,
      stopping_criteria: [run.stopping]
    });
  } finally {
    run.release();
  }
  if (!run.interrupted) {
    run.send(cutter.finish());
  }
  run.done(
    ended || run.generated < request.maxNewTokens ? 'stop' : 'length',
    promptTokens,
    0
  );
}
