import { describeModelError } from '../../errors';
import { localModelError } from '../local-errors';

const HUB_FILE =
  'https://huggingface.co/onnx-community/Qwen3-0.6B-ONNX/resolve/main/onnx/model_q4.onnx';

describe('local model errors name what failed', () => {
  it('a download with no answer names the file and the host, and the three ways out', () => {
    const error = localModelError(
      'Could not download onnx/model_q4.onnx from huggingface.co: Failed to fetch',
      { url: HUB_FILE, model: 'onnx-community/Qwen3-0.6B-ONNX' }
    );
    expect(error.kind).toBe('unreachable');
    expect(error.message).toBe(
      'Could not download onnx/model_q4.onnx from huggingface.co (Failed to fetch)'
    );
    expect(error.hint).toMatch(
      /^Can’t reach huggingface\.co — offline or blocked\?/
    );
    expect(error.hint).toContain('OPENAI_BASE_URL and OPENAI_API_KEY');
    expect(error.hint).toContain('c.NotebookAgent.local_models_dir');
    expect(error.hint).toContain('settings');
    expect(error.message).not.toContain('browser console');
    // The sidebar shows it as a set-up problem: Retry and Open settings.
    expect(describeModelError(error)).toMatchObject({
      kind: 'not-configured',
      message: error.message
    });
  });

  it('names the host of a mirror or of the site’s model folder', () => {
    const error = localModelError('fetch failed', {
      url: 'http://localhost:8888/notebook-agent/models/site/tiny/tokenizer.json',
      model: 'site/tiny'
    });
    expect(error.message).toBe(
      'Could not download tokenizer.json from localhost:8888 (fetch failed)'
    );
    expect(error.hint).toContain('Can’t reach localhost:8888');
  });

  it('a bare "Failed to fetch" still names the host the files come from', () => {
    const error = localModelError('Failed to fetch', {
      host: 'hf-mirror.com'
    });
    expect(error.kind).toBe('unreachable');
    expect(error.message).toBe(
      'Could not download the model’s files from hf-mirror.com (Failed to fetch)'
    );
  });

  it('a 404 names the file and the host that has not got it', () => {
    const error = localModelError(`Could not locate file: "${HUB_FILE}".`, {});
    expect(error.kind).toBe('file-missing');
    expect(error.message).toBe(
      `huggingface.co has no onnx/model_q4.onnx for this model (${HUB_FILE})`
    );
  });

  it('onnxruntime’s .wasm that did not load is a broken install, not the network', () => {
    const error = localModelError(
      'Could not download ort-wasm-simd-threaded.asyncify.wasm from localhost:8888: Failed to fetch',
      {
        url: 'http://localhost:8888/lab/extensions/x/static/ort-wasm-simd-threaded.asyncify.wasm'
      }
    );
    expect(error.kind).toBe('no-backend');
    expect(error.message).toBe(
      'Could not load onnxruntime’s ort-wasm-simd-threaded.asyncify.wasm from localhost:8888: Failed to fetch'
    );
  });

  it('WebGPU failures name the adapter and the rung', () => {
    const error = localModelError('GPUDevice was lost: device hung', {
      device: 'WebGPU (q4f16)',
      adapter: 'nvidia ampere'
    });
    expect(error.kind).toBe('webgpu');
    expect(error.message).toBe(
      'WebGPU failed on nvidia ampere (WebGPU (q4f16)): GPUDevice was lost: device hung'
    );
  });

  it('out of memory names the device', () => {
    const error = localModelError('Failed to allocate 2 GB', {
      device: 'WebAssembly (q8)'
    });
    expect(error.kind).toBe('out-of-memory');
    expect(error.message).toBe(
      'The model does not fit in this device’s memory on WebAssembly (q8): Failed to allocate 2 GB'
    );
  });

  it('anything else keeps its words and says where it ran', () => {
    const error = localModelError('Unexpected token', {
      device: 'WebAssembly (q4)'
    });
    expect(error.kind).toBe('unknown');
    expect(error.message).toBe(
      'The local model failed on WebAssembly (q4): Unexpected token'
    );
  });
});
