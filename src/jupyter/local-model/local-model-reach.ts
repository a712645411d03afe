/**
 * Where the local model's files come from (from the settings), and the
 * check that they can be reached, run when the sidebar first shows the
 * local model (not at JupyterLab's start): one small request, once per
 * model and host, never waited for.
 */
import { PageConfig } from '@jupyterlab/coreutils';
import {
  ModelReachStore,
  PROBE_FILE,
  modelFileUrl
} from '../../agent/model/local/reachability';
import type { IModelSource } from '../../agent/model/local/worker-protocol';
import type { AgentConfig } from '../config/agent-config';
import { localModelStatus } from './local-model-status';
import type { IAgentSettings } from '../config/settings';

/** The Cache API cache transformers.js keeps model files in (its `env.cacheKey`). */
export const MODEL_CACHE_NAME = 'transformers-cache';

/** Where the settings say the weights come from (the model is the entry's). */
export function localSource(
  settings: IAgentSettings
): Omit<IModelSource, 'model' | 'revision'> {
  return {
    remoteHost: settings.localModelHost || undefined,
    localModelPath: workerUrl(settings.localModelPath),
    allowRemote: settings.localModelAllowRemote
  };
}

/**
 * A settings URL made absolute for the worker (which would resolve a
 * relative one against its script's URL): `notebook-agent/models/` is taken
 * relative to the Jupyter server's base URL (so it works behind JupyterHub),
 * `/models/` relative to this origin; '' stays unset.
 */
export function workerUrl(value: string): string | undefined {
  if (!value) {
    return undefined;
  }
  const base = value.startsWith('/')
    ? location.origin
    : new URL(PageConfig.getBaseUrl(), location.href).href;
  return new URL(value, base).href;
}

/** Whether transformers.js's cache in this browser holds `url`. */
async function inModelCache(url: string): Promise<boolean> {
  if (typeof caches === 'undefined') {
    return false;
  }
  const cache = await caches.open(MODEL_CACHE_NAME);
  return (await cache.match(url)) !== undefined;
}

/** Whether the local model's host answered (the sidebar's offline notice reads it). */
export const localModelReach = new ModelReachStore(
  (url, init) => fetch(url, init),
  undefined,
  inModelCache
);

// A model that loads after all (the network is back) lifts the notice.
localModelStatus.subscribe(() => {
  if (localModelStatus.getSnapshot().stage === 'ready') {
    localModelReach.loaded();
  }
});

/**
 * Check, unless it was checked already, that the chosen local model's
 * files can be reached; returns at once.
 */
export function checkLocalModelReach(config: AgentConfig): void {
  const entry = config.localEntry();
  localModelReach.check(
    entry
      ? modelFileUrl(
          {
            ...localSource(config.settings),
            model: entry.id,
            revision: entry.revision
          },
          PROBE_FILE
        )
      : null,
    entry?.id
  );
}
