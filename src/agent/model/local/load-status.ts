/**
 * What the local model is doing, as a small store the sidebar reads with
 * `useSyncExternalStore`: downloading (bytes, percent), compiling, ready on
 * which device, generating (tokens per second), or failed (and why).
 */
import type { IRung } from './device-ladder';
import { ValueStore } from '../../value-store';

/** The local model's state. */
export interface ILocalModelStatus {
  model: string;
  stage: 'idle' | 'download' | 'compiling' | 'ready' | 'generating' | 'error';
  /** The file being fetched. */
  file?: string;
  loaded: number;
  total: number;
  percent: number;
  /** Where it runs, once loaded. */
  rung?: IRung;
  /** Slow-path warning (WASM, software adapter). */
  warning?: string | null;
  /** Rungs that failed before this one, in words. */
  fallbacks: string[];
  /** Decode speed of the current or last answer. */
  tokensPerSecond?: number;
  /** The prompt being read (processed) before the first token, if any. */
  prompt?: IPromptReading;
  /** Prompt tokens read per second in the last turn that read any. */
  promptTokensPerSecond?: number;
  error?: string;
}

/** A prompt being processed: its size, and a guess of how long it takes. */
export interface IPromptReading {
  tokens: number;
  /** Tokens of it the cache of the last turn holds (not read again). */
  reused: number;
  /** Seconds it should take at the last turn's speed; absent before one was measured. */
  estimateS?: number;
}

/** The initial status. */
export const IDLE_STATUS: ILocalModelStatus = {
  model: '',
  stage: 'idle',
  loaded: 0,
  total: 0,
  percent: 0,
  fallbacks: []
};

/** A subscribable status. */
export class LocalModelStatusStore {
  private readonly _store = new ValueStore<ILocalModelStatus>(IDLE_STATUS);

  /** The current status (a new object after each change). */
  readonly getSnapshot = this._store.getSnapshot;

  /** Listen to changes; returns the unsubscribe function. */
  readonly subscribe = this._store.subscribe;

  /** Change some fields. */
  update(patch: Partial<ILocalModelStatus>): void {
    this._store.patch(patch);
  }
}
