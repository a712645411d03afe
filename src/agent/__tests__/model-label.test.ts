/**
 * The model's name as the header shows it (model/model-label.ts): a GGUF
 * file's path, as llama-server reports it, becomes the model's name; a
 * model's own name is shown as it is.
 */
import { readableModelName } from '../model/model-label';

describe('the readable name of a model', () => {
  it.each([
    // llama-server's id for `-m <file>`: the file's path.
    [
      '/root/.cache/llama.cpp/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf',
      'qwen2.5-coder-1.5b-instruct'
    ],
    // llama.cpp's download cache prefixes the repository (`-hf`).
    [
      '/root/.cache/llama.cpp/Qwen_Qwen2.5-Coder-1.5B-Instruct-GGUF_qwen2.5-coder-1.5b-instruct-q4_k_m.gguf',
      'qwen2.5-coder-1.5b-instruct'
    ],
    ['Qwen2.5-Coder-0.5B-Instruct-Q8_0.gguf', 'Qwen2.5-Coder-0.5B-Instruct'],
    ['./SmolLM2-135M-Instruct.Q4_1.gguf', 'SmolLM2-135M-Instruct'],
    [
      '/models/mistral-7b-instruct-v0.2.Q4_K_M.gguf',
      'mistral-7b-instruct-v0.2'
    ],
    ['/m/Llama-3.2-3B-Instruct-UD-Q4_K_XL.gguf', 'Llama-3.2-3B-Instruct'],
    ['/m/Llama-3.2-1B-Instruct-IQ4_XS.gguf', 'Llama-3.2-1B-Instruct'],
    ['C:\\models\\phi-3-mini-4k-instruct-fp16.gguf', 'phi-3-mini-4k-instruct'],
    [
      '/m/qwen2.5-7b-instruct-q4_k_m-00001-of-00002.gguf',
      'qwen2.5-7b-instruct'
    ],
    // vLLM serving a folder names the model by the folder's path.
    ['/models/llama-3-8b-instruct/', 'llama-3-8b-instruct'],
    ['model.gguf', 'model']
  ])('%s → %s', (id, name) => {
    expect(readableModelName(id)).toBe(name);
  });

  it.each([
    'gpt-4o-mini',
    'qwen2.5-coder:1.5b',
    'Qwen/Qwen2.5-Coder-1.5B-Instruct',
    'hf.co/bartowski/Qwen2.5-Coder-1.5B-Instruct-GGUF:Q4_K_M',
    'scripted-model',
    ''
  ])('a model’s own name is kept: %s', id => {
    expect(readableModelName(id)).toBe(id);
  });

  it('never shows an empty name', () => {
    expect(readableModelName('/m/q4_k_m.gguf')).toBe('q4_k_m');
    expect(readableModelName('/')).toBe('/');
  });
});
