/**
 * The chat's KV cache between two turns: the keys and values of the tokens
 * the previous turn read and wrote, kept so that the next turn, which
 * re-sends the same history plus a little more, reads only what is new.
 * Completions never use it (./raw-completion.ts runs them from an empty cache).
 */
import type {
  IPastKeyValuesLike,
  ITensorLike,
  ITransformersLike
} from './transformers-like';

/** Below this many common tokens, cutting the cache is not worth it. */
const MIN_REUSED_TOKENS = 8;

/** The previous chat turn's cache and the token ids it holds. */
export class ChatCache {
  /** The token ids whose keys and values `_cache` holds. */
  private _cachedIds: bigint[] = [];
  private _cache: IPastKeyValuesLike | null = null;

  constructor(private readonly _lib: ITransformersLike) {}

  /** The cache a turn passes to generate() when `reusable` found tokens. */
  get pastKeyValues(): IPastKeyValuesLike | null {
    return this._cache;
  }

  /**
   * How many prompt tokens the cache of the previous turn covers. Each step
   * of an agent run re-sends the history plus a little more, so the prompt
   * usually starts with the cached tokens: all of them are reused. When the
   * template rewrote the end (the previous answer re-rendered), a cache on
   * the CPU is cut back to the common prefix; one on the GPU (or one with
   * recurrent state, which cannot be cut) is dropped.
   */
  async reusable(promptIds: bigint[]): Promise<number> {
    const cache = this._cache;
    const cached = this._cachedIds;
    let common = 0;
    const limit = Math.min(cached.length, promptIds.length - 1);
    while (common < limit && cached[common] === promptIds[common]) {
      common++;
    }
    if (cache && common > 0 && common === cached.length) {
      return common;
    }
    const cropped =
      cache && common >= MIN_REUSED_TOKENS ? this._crop(cache, common) : null;
    await this.drop();
    if (!cropped) {
      return 0;
    }
    this._cache = cropped;
    this._cachedIds = cached.slice(0, common);
    return common;
  }

  /** Keep a finished turn's cache, with the ids of the sequence it ran. */
  keep(cache: IPastKeyValuesLike, sequence: bigint[]): void {
    this._cache = cache;
    // The last token was sampled but never run through the model.
    this._cachedIds = sequence.slice(0, cache.get_seq_length());
  }

  /** Forget the cache and free its tensors. */
  async drop(): Promise<void> {
    const cache = this._cache;
    this._cache = null;
    this._cachedIds = [];
    await cache?.dispose();
  }

  /** The cache cut to its first `length` tokens; null when it cannot be cut. */
  private _crop(
    cache: IPastKeyValuesLike,
    length: number
  ): IPastKeyValuesLike | null {
    const entries = Object.entries(
      cache as unknown as Record<string, ITensorLike>
    );
    const cuttable = entries.every(
      ([name, tensor]) =>
        name.startsWith('past_key_values.') &&
        (tensor.location ?? 'cpu') === 'cpu' &&
        tensor.dims.length === 4
    );
    if (!entries.length || !cuttable) {
      return null;
    }
    return new this._lib.DynamicCache(
      Object.fromEntries(
        entries.map(([name, tensor]) => [
          name,
          tensor.slice(null, null, [0, length], null)
        ])
      )
    );
  }
}
