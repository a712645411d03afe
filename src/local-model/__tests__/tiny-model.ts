/**
 * The tiny test model (tests/local_model/build_tiny_model.py), built on
 * first use, and transformers.js's Node build set up to read it.
 */
import { execFileSync } from 'child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync
} from 'fs';
import * as path from 'path';
import type { ITransformersLike } from '../transformers-like';

const ROOT = path.resolve(__dirname, '../../..');

/** Folder holding the models; the tiny model is `tiny-llama` in it. */
export const MODELS_DIR = path.join(ROOT, 'build', 'local-models');

/** The tiny model's id (a folder of MODELS_DIR). */
export const TINY_MODEL = 'tiny-llama';

/** Build the tiny model unless it is there already (about 5 s). */
export function ensureTinyModel(): void {
  if (existsSync(path.join(MODELS_DIR, TINY_MODEL, 'onnx', 'model_q4.onnx'))) {
    return;
  }
  execFileSync(
    process.env.PYTHON ?? 'python',
    [
      path.join(ROOT, 'tests/local_model/build_tiny_model.py'),
      path.join(MODELS_DIR, TINY_MODEL)
    ],
    { stdio: 'inherit' }
  );
}

/**
 * transformers.js for Node: the worker asks for `wasm`, which in Node is
 * onnxruntime-node's `cpu` (the same CPU kernels, native). `threads` sets
 * onnxruntime's intra-op threads (default: one per core).
 */
export function nodeTransformers(threads?: number): ITransformersLike {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const lib = require('@huggingface/transformers') as ITransformersLike;
  return {
    ...lib,
    env: lib.env,
    AutoModelForCausalLM: {
      from_pretrained: (id, options = {}) =>
        lib.AutoModelForCausalLM.from_pretrained(id, {
          ...options,
          device: options.device === 'wasm' ? 'cpu' : options.device,
          ...(threads
            ? { session_options: { intraOpNumThreads: threads } }
            : {})
        })
    }
  };
}

/** Qwen2.5-Coder's fill-in-the-middle tokens. */
export const FIM_TOKENS = [
  '<|fim_prefix|>',
  '<|fim_suffix|>',
  '<|fim_middle|>'
];

/** A tokenizer.json, as far as the FIM copy edits it. */
interface ITokenizerJson {
  added_tokens: Array<{ id: number; content: string; special: boolean }>;
  model: { vocab: Record<string, number> };
  post_processor: unknown;
}

/**
 * A copy of the tiny model whose tokenizer has Qwen's FIM tokens as added
 * special tokens: they take the ids of three of SmolLM2's unused special
 * tokens (3-5: `<repo_name>`, `<reponame>`, `<file_sep>`), so the model's
 * embedding has rows for them. The weights are linked, not copied. `edit`
 * changes the tokenizer further; `generation` is merged into
 * generation_config.json. Returns the folder's name under `root`.
 */
export function writeFimTinyModel(
  root: string,
  name: string,
  options: {
    edit?: (tokenizer: ITokenizerJson) => void;
    generation?: Record<string, unknown>;
  } = {}
): string {
  ensureTinyModel();
  const source = path.join(MODELS_DIR, TINY_MODEL);
  const out = path.join(root, name);
  mkdirSync(path.join(out, 'onnx'), { recursive: true });
  for (const file of ['config.json', 'tokenizer_config.json']) {
    copyFileSync(path.join(source, file), path.join(out, file));
  }
  const generation = JSON.parse(
    readFileSync(path.join(source, 'generation_config.json'), 'utf8')
  ) as Record<string, unknown>;
  writeFileSync(
    path.join(out, 'generation_config.json'),
    JSON.stringify({ ...generation, ...options.generation })
  );
  symlinkSync(
    path.join(source, 'onnx', 'model_q4.onnx'),
    path.join(out, 'onnx', 'model_q4.onnx')
  );
  const tokenizer = JSON.parse(
    readFileSync(path.join(source, 'tokenizer.json'), 'utf8')
  ) as ITokenizerJson;
  FIM_TOKENS.forEach((content, i) => {
    const id = 3 + i;
    const added = tokenizer.added_tokens.find(t => t.id === id)!;
    delete tokenizer.model.vocab[added.content];
    tokenizer.model.vocab[content] = id;
    added.content = content;
  });
  options.edit?.(tokenizer);
  writeFileSync(path.join(out, 'tokenizer.json'), JSON.stringify(tokenizer));
  return name;
}
