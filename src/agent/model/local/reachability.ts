/**
 * Can the local model's files be reached? Before the first prompt the
 * sidebar asks the model's host for one small file (the model's
 * config.json, with HEAD and a short timeout), so that offline, or behind
 * a firewall, it says so at once instead of failing on the first prompt
 * with a bare "Failed to fetch".
 *
 * Plain logic: the caller passes `fetch`, so Node tests and the browser
 * run the same code.
 */
import type { IModelSource } from './worker-protocol';
import { ValueStore } from '../../value-store';

/** Where model files come from when no host is configured. */
export const HUB_HOST = 'https://huggingface.co';

/** How long the check waits for an answer. */
export const REACH_TIMEOUT_MS = 5000;

/** The small file the check asks for. */
export const PROBE_FILE = 'config.json';

/** What the check found (`model`: the id of the model it was for). */
export type ModelReach =
  | { state: 'unchecked' }
  | { state: 'checking'; url: string }
  | { state: 'reachable'; url: string; cached?: boolean; model?: string }
  /** No answer (offline, DNS, a firewall, a timeout) or a refusal (403, 5xx). */
  | {
      state: 'unreachable';
      url: string;
      host: string;
      reason: string;
      model?: string;
    }
  /** The host answered, but has no such file (a wrong model id or folder). */
  | {
      state: 'missing';
      url: string;
      host: string;
      status: number;
      model?: string;
    };

/** What a check ends with. */
export type CheckedReach = Exclude<
  ModelReach,
  { state: 'unchecked' | 'checking' }
>;

/** An outcome the sidebar says something about. */
export type ModelUnreachable = Extract<
  ModelReach,
  { state: 'unreachable' | 'missing' }
>;

/** Whether `reach` says the files cannot be had. */
export function isUnreachable(reach: ModelReach): reach is ModelUnreachable {
  return reach.state === 'unreachable' || reach.state === 'missing';
}

/** The part of `fetch` (model/fetch-like.ts) the check uses: it reads only the status. */
export type ProbeFetch = (
  url: string,
  init: {
    method: string;
    headers: Record<string, string>;
    signal: AbortSignal;
    cache: 'no-store';
  }
) => Promise<{ ok: boolean; status: number }>;

/** Whether the browser's cache of model files holds `url` (it then loads offline). */
export type CachedLike = (url: string) => Promise<boolean>;

/**
 * The URL of `file` of the model, as the worker will fetch it: from the
 * site's model folder (`{folder}/{model}/{file}`) when one is set over
 * HTTP, else from the host (`{host}/{model}/resolve/{revision}/{file}`);
 * null when the model is not fetched over HTTP at all (downloads off and
 * no folder).
 */
export function modelFileUrl(
  source: IModelSource,
  file: string
): string | null {
  const folder = source.localModelPath;
  if (folder && /^https?:\/\//.test(folder)) {
    return joinUrl(folder, `${source.model}/${file}`);
  }
  if (!source.allowRemote) {
    return null;
  }
  return joinUrl(
    source.remoteHost || HUB_HOST,
    `${source.model}/resolve/${source.revision}/${file}`
  );
}

/** The host of a URL, as the user knows it ("huggingface.co"). */
export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/**
 * The file's path in the model folder, from a URL `modelFileUrl` built
 * ("onnx/model_q4.onnx"), or the URL's last part for any other.
 */
export function fileOfUrl(url: string, model?: string): string {
  let path: string;
  try {
    path = decodeURIComponent(new URL(url).pathname);
  } catch {
    path = url;
  }
  const resolved = /\/resolve\/[^/]+\/(.+)$/.exec(path);
  if (resolved) {
    return resolved[1];
  }
  const folder = model ? `/${model}/` : '';
  const index = folder ? path.indexOf(folder) : -1;
  if (index >= 0) {
    return path.slice(index + folder.length);
  }
  return path.split('/').pop() || path;
}

/**
 * Ask for the first byte of `url` once, waiting at most `timeoutMs`: a
 * 2xx answer means the files can be reached, a 404 that the host has no
 * such file; no answer, or a refusal, that they cannot be reached. A file
 * in `cached` needs no request.
 */
export async function checkModelReach(
  url: string,
  fetchFn: ProbeFetch,
  timeoutMs: number = REACH_TIMEOUT_MS,
  cached?: CachedLike
): Promise<CheckedReach> {
  if (cached && (await cached(url).catch(() => false))) {
    return { state: 'reachable', url, cached: true };
  }
  const host = hostOf(url);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const response = await fetchFn(url, {
      method: 'GET',
      headers: { Range: 'bytes=0-0' },
      signal: controller.signal,
      cache: 'no-store'
    });
    if (response.ok) {
      return { state: 'reachable', url };
    }
    if (response.status === 404) {
      return { state: 'missing', url, host, status: 404 };
    }
    return {
      state: 'unreachable',
      url,
      host,
      reason: `it answered HTTP ${response.status}`
    };
  } catch (error) {
    return {
      state: 'unreachable',
      url,
      host,
      reason: controller.signal.aborted
        ? `no answer within ${inWords(timeoutMs)}`
        : messageOf(error)
    };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The check's outcome as a store the sidebar subscribes to. `check(url)`
 * asks once per URL (a second call for the same URL does nothing), so
 * opening the sidebar again, or re-rendering it, sends no more requests;
 * a new URL (the settings changed) is checked afresh.
 */
export class ModelReachStore {
  private readonly _store = new ValueStore<ModelReach>({ state: 'unchecked' });
  private _url: string | null = null;

  constructor(
    private readonly _fetch: ProbeFetch,
    private readonly _timeoutMs: number = REACH_TIMEOUT_MS,
    private readonly _cached?: CachedLike
  ) {}

  /** The current outcome. */
  readonly getSnapshot = this._store.getSnapshot;

  /** Listen to changes; returns the unsubscribe function. */
  readonly subscribe = this._store.subscribe;

  /**
   * Check `url` (null: nothing to check, e.g. downloads are off), the
   * probe file of `model`. Returns at once; the outcome arrives in the store.
   */
  check(url: string | null, model?: string): void {
    if (url === this._url) {
      return;
    }
    this._url = url;
    if (!url) {
      this._set({ state: 'unchecked' });
      return;
    }
    this._set({ state: 'checking', url });
    void checkModelReach(url, this._fetch, this._timeoutMs, this._cached).then(
      outcome => {
        // A later check (other settings) wins over this one.
        if (this._url === url) {
          this._set(model ? { ...outcome, model } : outcome);
        }
      }
    );
  }

  /**
   * The model loaded after all (the network came back): its files could
   * be reached, whatever the check said.
   */
  loaded(): void {
    const state = this._store.getSnapshot();
    if (isUnreachable(state)) {
      this._set({ state: 'reachable', url: state.url, model: state.model });
    }
  }

  private _set(state: ModelReach): void {
    this._store.set(state);
  }
}

/** An error's message (errors from another realm, e.g. Node's fetch under Jest, included). */
export function messageOf(error: unknown): string {
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : String(error);
}

function inWords(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`;
}

function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}/${path}`;
}
