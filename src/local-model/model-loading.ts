/**
 * Loading a model in the worker: where its files come from, the tokenizer,
 * then the model down the device ladder (WebGPU's shaders compiled before it
 * counts as loaded), with progress, fallbacks and the `loaded` event posted
 * as they happen.
 */
import {
  loadWithFallback,
  type IRung
} from '../agent/model/local/device-ladder';
import type {
  WorkerEvent,
  WorkerRequest
} from '../agent/model/local/worker-protocol';
import { errorMessage } from './error-message';
import { applySource, describeSource } from './model-source';
import { ProgressTracker, type IProgressInfo } from './progress-tracker';
import { encodePrompt, startsInThinking } from './prompt-encoding';
import type {
  ICausalLMLike,
  ITokenizerLike,
  ITransformersLike
} from './transformers-like';

type LoadRequest = Extract<WorkerRequest, { type: 'load' }>;

/** A loaded model, its tokenizer and where it runs. */
export interface ILoadedModel {
  tokenizer: ITokenizerLike;
  model: ICausalLMLike;
  rung: IRung;
}

/**
 * Load the request's model. `yieldNow` runs before each forward pass, so a
 * worker's queued messages (interrupt) arrive between two tokens.
 */
export async function loadModel(
  lib: ITransformersLike,
  request: LoadRequest,
  post: (event: WorkerEvent) => void,
  yieldNow: () => Promise<void>
): Promise<ILoadedModel> {
  const { source } = request;
  applySource(lib.env, source, request.wasmPaths);
  const tracker = new ProgressTracker(request.id, post);
  const progress_callback = (info: IProgressInfo) => tracker.update(info);
  const common = { revision: source.revision, progress_callback };
  const tokenizer = await lib.AutoTokenizer.from_pretrained(
    source.model,
    common
  ).catch(error => {
    // transformers.js reads `tokenizer_class` of a config it did not find.
    throw /tokenizer_class/.test(errorMessage(error))
      ? new Error(
          `${source.model}/tokenizer_config.json was not found (${describeSource(source)})`
        )
      : error;
  });
  const { value: model, rung } = await loadWithFallback<ICausalLMLike>(
    request.rungs,
    async (r: IRung) => {
      const loading = lib.AutoModelForCausalLM.from_pretrained(source.model, {
        ...common,
        dtype: r.dtype,
        device: r.device
      });
      const model = await loading;
      if (r.device === 'webgpu') {
        // The first run compiles the shaders: do it now, under "compiling".
        tracker.compiling();
        await model.generate({
          ...encodePrompt(tokenizer, [{ role: 'user', content: 'Hi' }], []),
          max_new_tokens: 1
        });
      }
      return model;
    },
    {
      onFallback: (failed, error, next) =>
        post({
          type: 'fallback',
          id: request.id,
          failed,
          next,
          error: errorMessage(error)
        })
    }
  );
  tracker.compiling();
  yieldBeforeForward(model, yieldNow);
  return { tokenizer, model, rung };
}

/** The `loaded` event of a model whose load began at `started`. */
export function loadedEvent(
  id: number,
  { tokenizer, rung }: ILoadedModel,
  started: number
): WorkerEvent {
  return {
    type: 'loaded',
    id,
    rung,
    seconds: (Date.now() - started) / 1000,
    startsInThinking: startsInThinking(tokenizer),
    endTokens: tokenizer.eos_token ? [tokenizer.eos_token] : []
  };
}

/** Yield to the event loop before each forward pass, so interrupt arrives. */
function yieldBeforeForward(
  model: ICausalLMLike,
  yieldNow: () => Promise<void>
): void {
  const forward = model.forward.bind(model);
  model.forward = async inputs => {
    await yieldNow();
    return forward(inputs);
  };
}
