/**
 * One model client per settings, built on first use and kept: a client
 * learns about its server as it goes (that it rejects `stream_options`,
 * for one), and a client built per task would forget it and pay for the
 * lesson again on every task.
 */
import type { IModelClient } from './types';

/** Clients kept at once (a few providers or models in use by chats). */
const MAX_CLIENTS = 8;

/** Builds and keeps the model client of each distinct settings value. */
export class ModelClientCache<S> {
  /**
   * `build` makes a client (it may throw, e.g. a ModelConfigError: nothing
   * is kept then); `key` tells settings apart (default: their JSON).
   */
  constructor(
    private readonly _build: (settings: S) => IModelClient,
    private readonly _key: (settings: S) => string = settings =>
      JSON.stringify(settings)
  ) {}

  /** The client for `settings`: the same one as long as they are the same. */
  get(settings: S): IModelClient {
    const key = this._key(settings);
    let client = this._clients.get(key);
    if (client) {
      // Most recently used last: the first is the one to forget.
      this._clients.delete(key);
    } else {
      client = this._build(settings);
    }
    this._clients.set(key, client);
    if (this._clients.size > MAX_CLIENTS) {
      this._clients.delete(this._clients.keys().next().value as string);
    }
    return client;
  }

  private readonly _clients = new Map<string, IModelClient>();
}
