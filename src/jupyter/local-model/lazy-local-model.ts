/**
 * The local model as the model factory hands it out: a thin client that
 * imports the real one (local-model-factory.ts) on the first turn, so the
 * start-up bundle stays as it was.
 */
import type {
  IChatChunk,
  IChatRequest,
  IModelClient
} from '../../agent/model/types';
import type { IAgentSettings } from '../config/settings';

/** Imports and delegates to the local model client on first use. */
export class LazyLocalModel implements IModelClient {
  constructor(private readonly _settings: IAgentSettings) {}

  get model(): string {
    return this._settings.localModel || 'local model';
  }

  async *streamChat(
    request: IChatRequest,
    signal: AbortSignal
  ): AsyncIterable<IChatChunk> {
    const { localModelClient } = await import('./local-model-factory');
    yield* localModelClient(this._settings).streamChat(request, signal);
  }
}
