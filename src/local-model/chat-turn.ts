/**
 * One turn of the agent's chat in the worker: the conversation through the
 * chat template, the previous turn's cache reused where the prompt begins
 * with its tokens, text streamed with special tokens kept (the main thread
 * parses tool calls from them), and the turn's cache kept for the next.
 */
import type {
  WorkerEvent,
  WorkerRequest
} from '../agent/model/local/worker-protocol';
import type { ChatCache } from './chat-cache';
import type { BeginGeneration } from './generation';
import type { ILoadedModel } from './model-loading';
import { encodePrompt } from './prompt-encoding';
import type {
  IPastKeyValuesLike,
  ITransformersLike
} from './transformers-like';

type GenerateRequest = Extract<WorkerRequest, { type: 'generate' }>;

/** Generate the request's reply, posting `prompt`, its tokens and `done`. */
export async function generateChatTurn(
  lib: ITransformersLike,
  { tokenizer, model }: ILoadedModel,
  cache: ChatCache,
  request: GenerateRequest,
  post: (event: WorkerEvent) => void,
  begin: BeginGeneration
): Promise<void> {
  const started = Date.now();
  const inputs = encodePrompt(tokenizer, request.messages, request.tools);
  const promptIds = (inputs.input_ids.tolist()[0] as bigint[]).map(BigInt);
  const reused = await cache.reusable(promptIds);
  post({
    type: 'prompt',
    id: request.id,
    promptTokens: promptIds.length,
    reusedTokens: reused
  });
  const run = begin(request.id, 'chat', started);
  const streamer = new lib.TextStreamer(tokenizer, {
    skip_prompt: true,
    skip_special_tokens: false,
    callback_function: run.send,
    token_callback_function: run.counted
  });
  try {
    const result = (await model.generate({
      ...inputs,
      ...(reused ? { past_key_values: cache.pastKeyValues } : {}),
      max_new_tokens: request.maxNewTokens,
      // Greedy unless the request samples (the agent's retry after a
      // refused repeat: agent/model/sampling.ts).
      ...(request.temperature
        ? { do_sample: true, temperature: request.temperature }
        : { do_sample: false }),
      streamer,
      stopping_criteria: [run.stopping],
      return_dict_in_generate: true
    })) as {
      sequences: { tolist(): unknown[] };
      past_key_values: IPastKeyValuesLike;
    };
    const sequence = (result.sequences.tolist()[0] as bigint[]).map(BigInt);
    cache.keep(result.past_key_values, sequence);
  } finally {
    run.release();
  }
  run.done(
    run.generated >= request.maxNewTokens ? 'length' : 'stop',
    promptIds.length,
    reused
  );
}
