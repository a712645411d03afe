/**
 * The tiny test model (tests/local_model/build_tiny_model.py), built on
 * first use, and transformers.js's Node build set up to read it.
 */
import { execFileSync } from 'child_process';
import { existsSync } from 'fs';
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
