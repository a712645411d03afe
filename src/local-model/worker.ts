/**
 * The local-model Web Worker. It imports only `@huggingface/transformers`
 * (and onnxruntime through it); the main thread starts it lazily, with
 * `new Worker(new URL('./worker.js', import.meta.url), { type: 'module' })`,
 * the first time a local model is used.
 */
import * as transformers from '@huggingface/transformers';
import type {
  WorkerEvent,
  WorkerRequest
} from '../agent/model/local/worker-protocol';
import { LocalModelWorker } from './model-worker';
import type { ITransformersLike } from './transformers-like';

const scope = self as unknown as {
  postMessage(message: WorkerEvent): void;
  onmessage: ((event: MessageEvent<WorkerRequest>) => void) | null;
  close(): void;
};

const worker = new LocalModelWorker(
  transformers as unknown as ITransformersLike,
  event => scope.postMessage(event)
);

scope.onmessage = event => {
  const request = event.data;
  void worker.handle(request).then(() => {
    if (request.type === 'dispose') {
      scope.close();
    }
  });
};
