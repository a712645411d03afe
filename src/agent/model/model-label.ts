/**
 * A model's name as a user recognises it. Servers that load a file name
 * the model by it: llama-server (and llama-cpp-python, vLLM on a folder)
 * report the id as the file's path, e.g.
 * "/root/.cache/llama.cpp/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf", which a
 * narrow header cuts to "/root/.cache/llama…". Shown instead: the file's
 * base name without ".gguf", its quantisation and its split part
 * ("qwen2.5-coder-1.5b-instruct"). Pure; the whole id stays in the tooltip
 * and in requests (only the label is shortened).
 */

/** A quantisation at the end of a GGUF file's name: "-q4_k_m", ".Q4_1", "-UD-Q4_K_XL", "-f16". */
const QUANTISATION =
  /[-._](?:UD-)?(?:I?Q\d+(?:_[A-Z0-9]+)*|F16|F32|BF16|FP16|FP32)$/i;
/** One file of a model split in parts: "-00001-of-00003". */
const SPLIT_PART = /-\d{5}-of-\d{5}$/i;
/** llama.cpp's download cache prefixes the repository: "Qwen_Qwen2.5-Coder-1.5B-Instruct-GGUF_". */
const CACHE_REPO = /^.+-GGUF_(?=.)/i;

/**
 * Whether `id` names a file or folder (a path or a ".gguf" file) rather
 * than a model ("gpt-4o", "qwen2.5-coder:1.5b", "Qwen/Qwen2.5-Coder-1.5B").
 */
function isPath(id: string): boolean {
  return (
    /\.gguf$/i.test(id) ||
    /^(?:[/~]|\.{1,2}[/\\]|[A-Za-z]:[/\\])/.test(id) ||
    id.includes('\\')
  );
}

/** The name to show for the model `id` (unchanged unless it names a file). */
export function readableModelName(id: string): string {
  const trimmed = id.trim();
  if (!isPath(trimmed)) {
    return trimmed;
  }
  const base =
    trimmed
      .split(/[/\\]/)
      .filter(part => part !== '')
      .pop() ?? trimmed;
  const name = base
    .replace(/\.gguf$/i, '')
    .replace(SPLIT_PART, '')
    .replace(QUANTISATION, '')
    .replace(CACHE_REPO, '');
  return name || base;
}
