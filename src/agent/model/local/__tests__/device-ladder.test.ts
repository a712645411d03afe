import {
  AllRungsFailedError,
  loadWithFallback,
  planRungs,
  probeDevice,
  type IGpuAdapterLike,
  type IGpuLike,
  type IRung,
  type LocalDtype
} from '../device-ladder';

const ALL: LocalDtype[] = ['q4f16', 'q4', 'q8', 'fp16', 'fp32'];

function adapter(
  features: string[],
  extra: Partial<IGpuAdapterLike> = {}
): IGpuAdapterLike {
  return { features: new Set(features), ...extra };
}

function gpu(result: IGpuAdapterLike | null | Error): IGpuLike {
  return {
    requestAdapter: async () => {
      if (result instanceof Error) {
        throw result;
      }
      return result;
    }
  };
}

describe('probeDevice', () => {
  it('reports no WebGPU when navigator.gpu is missing', async () => {
    const probe = await probeDevice(undefined);
    expect(probe.webgpu).toBe(false);
    expect(probe.reason).toMatch(/navigator\.gpu is missing/);
  });

  it('reports no WebGPU when requestAdapter() answers null', async () => {
    const probe = await probeDevice(gpu(null));
    expect(probe).toMatchObject({ webgpu: false, shaderF16: false });
    expect(probe.reason).toMatch(/no adapter/);
  });

  it('reports no WebGPU when requestAdapter() throws', async () => {
    const probe = await probeDevice(gpu(new Error('lost')));
    expect(probe.webgpu).toBe(false);
    expect(probe.reason).toMatch(/lost/);
  });

  it('sees shader-f16 and names the adapter', async () => {
    const probe = await probeDevice(
      gpu(
        adapter(['shader-f16', 'timestamp-query'], {
          info: { vendor: 'nvidia', architecture: 'ampere' }
        })
      )
    );
    expect(probe).toEqual({
      webgpu: true,
      shaderF16: true,
      fallbackAdapter: false,
      adapter: 'nvidia ampere',
      reason: ''
    });
  });

  it('flags a software adapter (SwiftShader) from either place it is reported', async () => {
    expect(
      (await probeDevice(gpu(adapter([], { isFallbackAdapter: true }))))
        .fallbackAdapter
    ).toBe(true);
    expect(
      (
        await probeDevice(
          gpu(
            adapter([], { info: { vendor: 'google', isFallbackAdapter: true } })
          )
        )
      ).fallbackAdapter
    ).toBe(true);
  });
});

describe('planRungs', () => {
  const f16 = {
    webgpu: true,
    shaderF16: true,
    fallbackAdapter: false,
    adapter: 'gpu',
    reason: ''
  };
  const noF16 = { ...f16, shaderF16: false };
  const noGpu = {
    ...f16,
    webgpu: false,
    shaderF16: false,
    reason: 'no adapter'
  };
  const names = (rungs: IRung[]) => rungs.map(r => `${r.device}:${r.dtype}`);

  it('prefers WebGPU + q4f16, then WebGPU + q4, then WASM + q8 (int8 kernels)', () => {
    const plan = planRungs(f16, ALL);
    expect(names(plan.rungs)).toEqual(['webgpu:q4f16', 'webgpu:q4', 'wasm:q8']);
    expect(plan.warning).toBeNull();
  });

  it('skips q4f16 without shader-f16', () => {
    expect(names(planRungs(noF16, ALL).rungs)).toEqual([
      'webgpu:q4',
      'wasm:q8'
    ]);
  });

  it('runs on WASM with a warning that names the reason when there is no WebGPU', () => {
    const plan = planRungs(noGpu, ALL);
    expect(names(plan.rungs)).toEqual(['wasm:q8']);
    expect(plan.warning).toMatch(/WebAssembly \(no WebGPU: no adapter\)/);
    expect(plan.warning).toMatch(/slow/);
  });

  it('uses q4 on WASM when the model has no q8, and full precision last', () => {
    expect(names(planRungs(noGpu, ['q4', 'fp32']).rungs)).toEqual(['wasm:q4']);
    expect(names(planRungs(noGpu, ['q4f16', 'fp32']).rungs)).toEqual([
      'wasm:fp32'
    ]);
    expect(names(planRungs(noF16, ['fp16', 'fp32']).rungs)).toEqual([
      'webgpu:fp32',
      'wasm:fp32'
    ]);
  });

  it('follows the device preference', () => {
    expect(names(planRungs(f16, ALL, 'wasm').rungs)).toEqual(['wasm:q8']);
    expect(planRungs(f16, ALL, 'wasm').warning).toMatch(/asks for WebAssembly/);
    expect(names(planRungs(f16, ALL, 'webgpu').rungs)).toEqual([
      'webgpu:q4f16',
      'webgpu:q4'
    ]);
    // Asking for WebGPU where there is none still runs, on WASM.
    expect(names(planRungs(noGpu, ALL, 'webgpu').rungs)).toEqual(['wasm:q8']);
  });

  it('warns about a software adapter', () => {
    const plan = planRungs({ ...noF16, fallbackAdapter: true }, ALL);
    expect(names(plan.rungs)).toEqual(['webgpu:q4', 'wasm:q8']);
    expect(plan.warning).toMatch(/software adapter/);
  });
});

describe('loadWithFallback', () => {
  const rungs: IRung[] = [
    { device: 'webgpu', dtype: 'q4f16' },
    { device: 'webgpu', dtype: 'q4' },
    { device: 'wasm', dtype: 'q4' }
  ];

  it('returns the first rung that loads, with the failures before it', async () => {
    const tried: string[] = [];
    const fallbacks: string[] = [];
    const result = await loadWithFallback(
      rungs,
      async rung => {
        tried.push(`${rung.device}:${rung.dtype}`);
        if (rung.device === 'webgpu') {
          throw new Error(`no ${rung.dtype}`);
        }
        return 'session';
      },
      {
        onFallback: (failed, error, next) =>
          fallbacks.push(
            `${failed.dtype} -> ${next.device}:${next.dtype}: ${String(error)}`
          )
      }
    );
    expect(tried).toEqual(['webgpu:q4f16', 'webgpu:q4', 'wasm:q4']);
    expect(result.value).toBe('session');
    expect(result.rung).toEqual({ device: 'wasm', dtype: 'q4' });
    expect(result.failures.map(f => String(f.error))).toEqual([
      'Error: no q4f16',
      'Error: no q4'
    ]);
    expect(fallbacks).toEqual([
      'q4f16 -> webgpu:q4: Error: no q4f16',
      'q4 -> wasm:q4: Error: no q4'
    ]);
  });

  it('stops at the first success', async () => {
    const load = jest.fn(async () => 1);
    await loadWithFallback(rungs, load);
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('throws every rung’s reason when all fail', async () => {
    const error = await loadWithFallback(rungs, async rung => {
      throw new Error(`${rung.device} broke`);
    }).catch(e => e);
    expect(error).toBeInstanceOf(AllRungsFailedError);
    expect((error as AllRungsFailedError).failures).toHaveLength(3);
    expect((error as Error).message).toMatch(
      /WebGPU \(q4f16\): webgpu broke; WebGPU \(q4\): webgpu broke; WebAssembly \(q4\): wasm broke/
    );
  });

  it('does not fall further once aborted', async () => {
    const controller = new AbortController();
    const load = jest.fn(async () => {
      controller.abort();
      throw new Error('aborted');
    });
    await expect(
      loadWithFallback(rungs, load, { signal: controller.signal })
    ).rejects.toThrow('aborted');
    expect(load).toHaveBeenCalledTimes(1);
  });
});
