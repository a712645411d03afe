/**
 * Where a local model runs: the device ladder.
 *
 * WebGPU with 4-bit weights and f16 activations (q4f16) is fastest, but
 * needs the `shader-f16` feature; without it WebGPU runs q4 in f32; without
 * a WebGPU adapter (no `navigator.gpu`, or `requestAdapter()` answering
 * null, as Chrome does on a blocklisted GPU) the model runs on the CPU in
 * WebAssembly, with a warning. If creating the session fails on one rung
 * (out of memory, an unsupported operator), `loadWithFallback` tries the
 * next and reports why.
 *
 * WebGPU is read through the small interfaces below, so the browser passes
 * `navigator.gpu` and tests pass fakes.
 */

/** Where onnxruntime runs the model. */
export type LocalDevice = 'webgpu' | 'wasm';

/** Weight formats of transformers.js (`dtype`). */
export type LocalDtype = 'q4f16' | 'q4' | 'q8' | 'fp16' | 'fp32';

/** One rung: a device and the weights it loads. */
export interface IRung {
  device: LocalDevice;
  dtype: LocalDtype;
}

/** The part of a WebGPU adapter the probe reads. */
export interface IGpuAdapterLike {
  readonly features: { has(feature: string): boolean };
  /** True for software adapters (SwiftShader). Newer browsers put it in `info`. */
  readonly isFallbackAdapter?: boolean;
  readonly info?: {
    vendor?: string;
    architecture?: string;
    description?: string;
    isFallbackAdapter?: boolean;
  };
}

/** The part of `navigator.gpu` the probe uses. */
export interface IGpuLike {
  requestAdapter(options?: {
    powerPreference?: 'high-performance' | 'low-power';
  }): Promise<IGpuAdapterLike | null>;
}

/** What the probe found. */
export interface IDeviceProbe {
  webgpu: boolean;
  shaderF16: boolean;
  /** A software adapter: WebGPU works, slowly. */
  fallbackAdapter: boolean;
  /** The adapter, in words ("nvidia ampere"), when there is one. */
  adapter: string;
  /** Why there is no WebGPU, for the user; '' when there is. */
  reason: string;
}

/** Which device the user asked for (setting `localModelDevice`). */
export type DevicePreference = 'auto' | 'webgpu' | 'wasm';

/** The rungs to try, in order, and a warning for the user. */
export interface IDevicePlan {
  rungs: IRung[];
  /** Set when the model will run slowly (WASM, or a software adapter). */
  warning: string | null;
  /** The WebGPU adapter, in words, when a rung uses it (for error messages). */
  adapter?: string;
}

/** Probe WebGPU: `gpu` is `navigator.gpu` (undefined where the browser has none). */
export async function probeDevice(
  gpu: IGpuLike | null | undefined
): Promise<IDeviceProbe> {
  const none = (reason: string): IDeviceProbe => ({
    webgpu: false,
    shaderF16: false,
    fallbackAdapter: false,
    adapter: '',
    reason
  });
  if (!gpu) {
    return none('this browser has no WebGPU (navigator.gpu is missing)');
  }
  let adapter: IGpuAdapterLike | null;
  try {
    adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
  } catch (error) {
    return none(`requesting a WebGPU adapter failed: ${String(error)}`);
  }
  if (!adapter) {
    return none(
      'WebGPU is present but offers no adapter (the GPU may be blocklisted or ' +
        'hardware acceleration turned off; chrome://gpu tells which)'
    );
  }
  const info = adapter.info ?? {};
  return {
    webgpu: true,
    shaderF16: adapter.features.has('shader-f16'),
    fallbackAdapter: Boolean(
      adapter.isFallbackAdapter ?? info.isFallbackAdapter
    ),
    adapter: [info.vendor, info.architecture, info.description]
      .filter(Boolean)
      .join(' '),
    reason: ''
  };
}

/**
 * The rungs for a model that ships `dtypes`, best first: WebGPU + q4f16
 * (with shader-f16), WebGPU + q4, then WASM + q8 (or q4). A dtype the model
 * lacks is skipped; full-precision weights are a last resort per device.
 *
 * WASM prefers q8: onnxruntime-web's WebAssembly build has int8 SIMD matrix
 * kernels but no 4-bit one, so a q4 graph (MatMulNBits) dequantizes all its
 * weights on every call there. Measured on SmolLM2-135M, one thread: q4
 * 4.2 tokens/s, q8 ~30 (bench/README.md, "Local model vs llama.cpp").
 */
export function planRungs(
  probe: IDeviceProbe,
  dtypes: readonly LocalDtype[],
  preference: DevicePreference = 'auto'
): IDevicePlan {
  const has = (d: LocalDtype) => dtypes.includes(d);
  const gpuOrder: LocalDtype[] = probe.shaderF16 ? ['q4f16', 'q4'] : ['q4'];
  const gpuDtypes = gpuOrder.filter(has);
  if (!gpuDtypes.length) {
    const full = (
      probe.shaderF16 ? ['fp16', 'fp32'] : ['fp32']
    ) as LocalDtype[];
    gpuDtypes.push(...full.filter(has).slice(0, 1));
  }
  const cpuDtype = (['q8', 'q4', 'fp32'] as LocalDtype[]).find(has);
  const gpu: IRung[] =
    probe.webgpu && preference !== 'wasm'
      ? gpuDtypes.map(dtype => ({ device: 'webgpu', dtype }))
      : [];
  const cpu: IRung[] =
    cpuDtype && !(preference === 'webgpu' && gpu.length)
      ? [{ device: 'wasm', dtype: cpuDtype }]
      : [];
  const rungs = [...gpu, ...cpu];
  let warning: string | null = null;
  if (!gpu.length) {
    const why =
      preference === 'wasm'
        ? 'the device setting asks for WebAssembly'
        : probe.webgpu
          ? 'this model has no weights WebGPU can use'
          : `no WebGPU: ${probe.reason}`;
    warning =
      `Running on the CPU with WebAssembly (${why}). It will be slow: ` +
      'expect a few tokens per second, and prefer a model under 1 B parameters.';
  } else if (probe.fallbackAdapter) {
    warning =
      'WebGPU runs on a software adapter (no GPU found): it will be slow. ' +
      'Set the local model device to "wasm" if the CPU path is faster here.';
  }
  return gpu.length && probe.adapter
    ? { rungs, warning, adapter: probe.adapter }
    : { rungs, warning };
}

/** A rung that failed, and why. */
export interface IRungFailure {
  rung: IRung;
  error: unknown;
}

/** What loading ended with. */
export interface ILoadResult<T> {
  value: T;
  rung: IRung;
  /** The rungs that failed first. */
  failures: IRungFailure[];
}

/** Every rung failed; `failures` holds each rung's error. */
export class AllRungsFailedError extends Error {
  constructor(readonly failures: IRungFailure[]) {
    super(
      failures.length
        ? `The model could not be loaded on any device: ${failures
            .map(f => `${rungName(f.rung)}: ${errorText(f.error)}`)
            .join('; ')}`
        : 'No device can run this model (it ships no usable weights).'
    );
    this.name = 'AllRungsFailedError';
  }
}

/**
 * Load on the first rung that works. `onFallback` is told of each failure
 * and of the rung tried next, so the user sees why it got slower. An
 * aborted `signal` stops the ladder at once.
 */
export async function loadWithFallback<T>(
  rungs: readonly IRung[],
  load: (rung: IRung) => Promise<T>,
  options: {
    onFallback?: (failed: IRung, error: unknown, next: IRung) => void;
    signal?: AbortSignal;
  } = {}
): Promise<ILoadResult<T>> {
  const failures: IRungFailure[] = [];
  for (let i = 0; i < rungs.length; i++) {
    const rung = rungs[i];
    try {
      return { value: await load(rung), rung, failures };
    } catch (error) {
      if (options.signal?.aborted) {
        throw error;
      }
      failures.push({ rung, error });
      const next = rungs[i + 1];
      if (next) {
        options.onFallback?.(rung, error, next);
      }
    }
  }
  throw new AllRungsFailedError(failures);
}

/** "WebGPU (q4f16)", for messages. */
export function rungName(rung: IRung): string {
  return `${rung.device === 'webgpu' ? 'WebGPU' : 'WebAssembly'} (${rung.dtype})`;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
