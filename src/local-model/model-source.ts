/**
 * Points transformers.js at the model's files and onnxruntime at its
 * WebAssembly binary, from a load request.
 *
 * A site's model folder reached over HTTP (the `localModelPath` setting,
 * e.g. the Jupyter server's `notebook-agent/models/`) is read the way the
 * hub is, `{folder}/{model}/{file}`: transformers.js then checks that a
 * file exists with a 1-byte range request, where as a "local path" it would
 * GET every file twice (the weights included). A folder on disk (Node)
 * stays a local path.
 */
import type { IModelSource } from '../agent/model/local/worker-protocol';
import { namingFetch } from './fetch-failure';
import type { ITransformersLike } from './transformers-like';

/** The onnxruntime binary the build emits (webpack.config.js). */
export const ORT_WASM_FILE = 'ort-wasm-simd-threaded.asyncify.wasm';

/** transformers.js's default layout of hub repositories. */
const HUB_TEMPLATE = '{model}/resolve/{revision}/';

type EnvFetch = NonNullable<ITransformersLike['env']['fetch']>;

/** The fetch each wrapper wraps, so configuring twice wraps once. */
const unwrapped = new WeakMap<EnvFetch, EnvFetch>();

/**
 * Configure `env` for `source`; `wasmPaths` is the folder of the .wasm.
 * Downloads go through a fetch whose failures name the file and host.
 */
export function applySource(
  env: ITransformersLike['env'],
  source: IModelSource,
  wasmPaths?: string
): void {
  if (isHttp(source.localModelPath)) {
    env.allowLocalModels = false;
    env.allowRemoteModels = true;
    env.remoteHost = source.localModelPath;
    env.remotePathTemplate = '{model}/';
  } else {
    env.allowRemoteModels = source.allowRemote;
    env.allowLocalModels = Boolean(source.localModelPath);
    if (source.localModelPath) {
      env.localModelPath = source.localModelPath;
    }
    if (source.remoteHost) {
      env.remoteHost = source.remoteHost;
    }
    env.remotePathTemplate = HUB_TEMPLATE;
  }
  if (env.fetch) {
    const original = unwrapped.get(env.fetch) ?? env.fetch;
    env.fetch = namingFetch(original, source.model);
    unwrapped.set(env.fetch, original);
  }
  if (wasmPaths && env.backends.onnx.wasm) {
    // onnxruntime's glue code is in the bundle; only the binary is fetched,
    // from the extension's own files (transformers.js would ask a CDN).
    // Naming no `.mjs` keeps the bundled glue in use.
    env.backends.onnx.wasm.wasmPaths = {
      wasm: new URL(ORT_WASM_FILE, wasmPaths).href
    };
  }
}

/** Where the files are looked for, in words (for "not found" errors). */
export function describeSource(source: IModelSource): string {
  if (isHttp(source.localModelPath)) {
    return `looked in the site's model folder ${source.localModelPath}`;
  }
  const places = [
    ...(source.localModelPath
      ? [`local model path ${source.localModelPath}`]
      : []),
    ...(source.allowRemote
      ? [`host ${source.remoteHost ?? 'https://huggingface.co'}`]
      : [])
  ];
  return places.length
    ? `looked in: ${places.join(', ')}`
    : 'no local model path is set and downloads are turned off';
}

function isHttp(url: string | undefined): url is string {
  return Boolean(url && /^https?:\/\//.test(url));
}
