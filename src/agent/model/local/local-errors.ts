/**
 * Readable errors for local models: what the worker reported, classified
 * into what the user can do about it.
 */
import { ModelConfigError } from '../errors';

/** What went wrong with a local model. */
export type LocalErrorKind =
  | 'out-of-memory'
  | 'file-missing'
  | 'no-backend'
  | 'webgpu'
  | 'worker'
  | 'unknown';

/**
 * A local model failed. It is a `ModelConfigError`, so the sidebar shows
 * its message and hint like any other set-up problem.
 */
export class LocalModelError extends ModelConfigError {
  constructor(
    readonly kind: LocalErrorKind,
    message: string,
    hint: string
  ) {
    super(message, hint);
    this.name = 'LocalModelError';
  }
}

const RULES: ReadonlyArray<[RegExp, LocalErrorKind, string, string]> = [
  [
    /out of memory|OOM|failed to allocate|allocation failed|Array buffer allocation|memory access out of bounds|maxBufferSize|exceeds the max/i,
    'out-of-memory',
    'The model does not fit in this device’s memory',
    'Pick a smaller model (or a 4-bit dtype) in the local model setting, or close other tabs that use the GPU.'
  ],
  [
    /404|not found|could not locate file|Unauthorized access to file/i,
    'file-missing',
    'A model file is missing',
    'Check the model id and revision, or the site’s model path (localModelPath / localModelHost), and that the server can reach it.'
  ],
  [
    /no available backend|failed to fetch.*\.wasm|\.wasm.*(404|failed)|WebAssembly\.instantiate/i,
    'no-backend',
    'The onnxruntime WebAssembly files could not be loaded',
    'The extension serves them from its own static files: reinstall or rebuild the extension, and check the browser’s network log.'
  ],
  [
    /webgpu|GPUDevice|adapter|shader/i,
    'webgpu',
    'WebGPU failed',
    'Set the local model device to "wasm" to run on the CPU, or update the browser and GPU driver.'
  ]
];

/** Classify the message of an error the worker (or the worker's start) reported. */
export function localModelError(detail: string): LocalModelError {
  for (const [pattern, kind, message, hint] of RULES) {
    if (pattern.test(detail)) {
      return new LocalModelError(kind, `${message}: ${detail}`, hint);
    }
  }
  return new LocalModelError(
    'unknown',
    `The local model failed: ${detail}`,
    'Try again, or pick another local model; the browser console may say more.'
  );
}
