/**
 * Readable errors for local models: what the worker reported, classified
 * into what the user can do about it. The message names what failed: the
 * file and the host it came from, the device and its adapter.
 */
import { ModelConfigError } from '../errors';
import { fileOfUrl, hostOf } from './reachability';

/** What went wrong with a local model. */
export type LocalErrorKind =
  | 'out-of-memory'
  | 'unreachable'
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

/** What the worker (and the device probe) know of a failure beyond its message. */
export interface ILocalErrorContext {
  /** The URL whose fetch failed (a model file, or onnxruntime's .wasm). */
  url?: string;
  /** The model id, to name the file within its folder. */
  model?: string;
  /** The host the model's files come from, when no URL is known. */
  host?: string;
  /** The device it was loading or running on, in words ("WebGPU (q4)"). */
  device?: string;
  /** The WebGPU adapter, in words ("nvidia ampere"), when it ran there. */
  adapter?: string;
}

/** What to do when a host cannot be reached: the three ways out. */
export function unreachableHint(host: string): string {
  return (
    `Can’t reach ${host} — offline or blocked? Use an OpenAI-compatible endpoint instead ` +
    '(OPENAI_BASE_URL and OPENAI_API_KEY in the Jupyter server’s environment), serve the weights ' +
    'from the Jupyter server (c.NotebookAgent.local_models_dir), or change the local model host ' +
    'in the settings.'
  );
}

/** A fetch that got no answer (offline, DNS, CORS, a firewall), in any browser or Node. */
const NETWORK =
  /failed to fetch|networkerror|load failed|fetch failed|ERR_(NAME_NOT_RESOLVED|INTERNET_DISCONNECTED|CONNECTION|NETWORK|ADDRESS_UNREACHABLE|TIMED_OUT)|ENOTFOUND|ECONNREFUSED|EAI_AGAIN|ETIMEDOUT/i;

/** transformers.js's message for a file the host answered 404 for. */
const NOT_LOCATED = /Could not locate file: "([^"]+)"/;

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

/**
 * Classify the message of an error the worker (or the worker's start)
 * reported; `context` names the URL, device and adapter where known.
 */
export function localModelError(
  detail: string,
  context: ILocalErrorContext = {}
): LocalModelError {
  const named = namedFailure(detail, context);
  if (named) {
    return named;
  }
  for (const [pattern, kind, message, hint] of RULES) {
    if (pattern.test(detail)) {
      return new LocalModelError(
        kind,
        `${message}${where(kind, context)}: ${detail}`,
        hint
      );
    }
  }
  return new LocalModelError(
    'unknown',
    `The local model failed${where('unknown', context)}: ${detail}`,
    'Try again, or pick another local model; the browser console may say more.'
  );
}

/** A download that failed, said with its file and host. */
function namedFailure(
  detail: string,
  context: ILocalErrorContext
): LocalModelError | null {
  const located = NOT_LOCATED.exec(detail)?.[1];
  const url = context.url ?? located;
  if (!url) {
    return context.host && NETWORK.test(detail)
      ? new LocalModelError(
          'unreachable',
          `Could not download the model’s files from ${context.host} (${detail})`,
          unreachableHint(context.host)
        )
      : null;
  }
  const file = fileOfUrl(url, context.model);
  const host = hostOf(url);
  if (/\.wasm$/.test(file)) {
    return new LocalModelError(
      'no-backend',
      `Could not load onnxruntime’s ${file} from ${host}: ${stripNamed(detail)}`,
      RULES[2][3]
    );
  }
  if (located) {
    return new LocalModelError(
      'file-missing',
      `${host} has no ${file} for this model (${url})`,
      RULES[1][3]
    );
  }
  return new LocalModelError(
    'unreachable',
    `Could not download ${file} from ${host} (${stripNamed(detail)})`,
    unreachableHint(host)
  );
}

/** The worker's message less the "Could not download … from …:" it starts with. */
function stripNamed(detail: string): string {
  return detail.replace(/^Could not download \S+ from \S+: /, '');
}

/** " on WebGPU (q4), adapter nvidia ampere": where it failed, when known. */
function where(kind: LocalErrorKind, context: ILocalErrorContext): string {
  if (kind === 'webgpu' || context.device?.startsWith('WebGPU')) {
    if (context.adapter) {
      return ` on ${context.adapter}${context.device ? ` (${context.device})` : ''}`;
    }
  }
  return context.device ? ` on ${context.device}` : '';
}
