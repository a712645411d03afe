/**
 * The small profile's sampling: greedy (temperature 0) unless a request
 * says otherwise (the reply after a refused repeat is sampled).
 *
 * Why: with a server's default sampling (llama-server: temperature 0.8)
 * Qwen2.5-Coder-1.5B scored 13, 14, 14 and 20 of the 35 built-in tasks in
 * four runs of the same code, so one run said little and a user asking
 * twice got two answers. Greedy, it scores about the sampled runs' average
 * (docs/evaluation.md, "Real models": not better, measured) and the same question gets
 * the same code. The in-browser model's worker is greedy by default too, and
 * samples when a request names a temperature (local-model/chat-turn.ts).
 */
import type { IChatChunk, IChatRequest, IModelClient } from './types';

/** The small profile's temperature. */
export const SMALL_MODEL_TEMPERATURE = 0;

/**
 * The temperature of a small model's reply after a step was refused as a
 * repeat (loop/run-agent.ts): greedy, it sends the same code again.
 */
export const RETRY_TEMPERATURE = 0.7;

/** `inner`, sending `temperature` with every request that names none. */
export class SamplingClient implements IModelClient {
  constructor(
    private readonly _inner: IModelClient,
    private readonly _temperature: number
  ) {}

  get model(): string {
    return this._inner.model;
  }

  streamChat(
    request: IChatRequest,
    signal: AbortSignal
  ): AsyncIterable<IChatChunk> {
    return this._inner.streamChat(
      { ...request, temperature: request.temperature ?? this._temperature },
      signal
    );
  }

  listModels(): Promise<string[]> {
    return this._inner.listModels?.() ?? Promise.resolve([]);
  }

  prepare(): void {
    this._inner.prepare?.();
  }
}
