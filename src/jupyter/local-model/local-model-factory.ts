/**
 * Builds the local model client from the settings and starts its Web
 * Worker. Loaded with `import()` on first use (lazy-local-model.ts), so
 * JupyterLab's start-up neither downloads nor parses any of it; the worker
 * bundle (transformers.js, onnxruntime) loads only when the worker starts.
 *
 * One client, one worker, one model: asking for another model ends the old
 * worker, which frees its memory.
 */
import { ModelConfigError } from '../../agent/model/errors';
import {
  findLocalModel,
  resolveCatalogue
} from '../../agent/model/local/catalogue';
import {
  planRungs,
  probeDevice,
  type IGpuLike
} from '../../agent/model/local/device-ladder';
import {
  LocalModelClient,
  type IWorkerPort
} from '../../agent/model/local/local-client';
import {
  WORKER_FAILED,
  type WorkerEvent
} from '../../agent/model/local/worker-protocol';
import { localSource } from './local-model-reach';
import { localModelStatus } from './local-model-status';
import type { IAgentSettings } from '../config/settings';

declare const __webpack_public_path__: string | undefined;

let current: { key: string; client: LocalModelClient } | null = null;

/** The client for the settings' local model (the same one while they stay). */
export function localModelClient(settings: IAgentSettings): LocalModelClient {
  const { models, problems } = resolveCatalogue(settings.localModels);
  const entry = findLocalModel(models, settings.localModel);
  if (!entry) {
    throw new ModelConfigError(
      `There is no local model "${settings.localModel}".`,
      `Pick one of ${models.map(m => m.id).join(', ')} in Settings > Settings Editor > ` +
        'Notebook Agent (Local model), or add it to the local model list.' +
        (problems.length ? ` Ignored list entries: ${problems.join('; ')}` : '')
    );
  }
  const source = localSource(settings);
  const key = JSON.stringify([entry, source, settings.localModelDevice]);
  if (current?.key === key) {
    return current.client;
  }
  disposeLocalModel();
  const device = settings.localModelDevice;
  const client = new LocalModelClient({
    entry,
    source,
    createWorker: startWorker,
    plan: async model =>
      planRungs(await probeDevice(navigatorGpu()), model.dtypes, device),
    wasmPaths: staticUrl(),
    maxNewTokens: entry.maxNewTokens,
    status: localModelStatus
  });
  current = { key, client };
  return client;
}

/** End the local model's worker, if one runs. */
export function disposeLocalModel(): void {
  current?.client.dispose();
  current = null;
}

function startWorker(): IWorkerPort {
  const worker = new Worker(
    new URL('../../local-model/worker.js', import.meta.url),
    { type: 'module' }
  );
  return {
    post: message => worker.postMessage(message),
    listen: listener => {
      const onMessage = (event: MessageEvent<WorkerEvent>) =>
        listener(event.data);
      // A worker that cannot start (its script failed to load) says so here.
      const onError = (event: ErrorEvent) =>
        listener({
          type: 'error',
          id: WORKER_FAILED,
          message: `The local model worker failed: ${event.message || 'its script did not load'}`
        });
      worker.addEventListener('message', onMessage);
      worker.addEventListener('error', onError);
      return () => {
        worker.removeEventListener('message', onMessage);
        worker.removeEventListener('error', onError);
      };
    },
    terminate: () => worker.terminate()
  };
}

/** `navigator.gpu`, where the browser has WebGPU. */
function navigatorGpu(): IGpuLike | undefined {
  return (navigator as unknown as { gpu?: IGpuLike }).gpu;
}

/** The extension's static folder, where the build put onnxruntime's .wasm. */
function staticUrl(): string | undefined {
  return typeof __webpack_public_path__ === 'string' && __webpack_public_path__
    ? new URL(__webpack_public_path__, location.href).href
    : undefined;
}
