/**
 * The messages between `LocalModelClient` (main thread) and the local-model
 * Web Worker (src/local-model/). Plain data only: everything here survives
 * `postMessage`'s structured clone.
 */
import type { IRung } from './device-ladder';
import type { ITemplateMessage, ITemplateTool } from './template-messages';

/** Where the worker finds the weights. */
export interface IModelSource {
  /** Hub repository id, or a folder name under `localModelPath`. */
  model: string;
  revision: string;
  /** Host that serves `{model}/resolve/{revision}/{file}` (default: the hub). */
  remoteHost?: string;
  /** URL prefix of a site's own models folder, tried before the remote host. */
  localModelPath?: string;
  /** Whether the remote host may be asked at all (false: offline sites). */
  allowRemote: boolean;
}

/** The `id` of an error that concerns every request (the worker died). */
export const WORKER_FAILED = -1;

/** Main thread → worker. */
export type WorkerRequest =
  | {
      type: 'load';
      id: number;
      source: IModelSource;
      /** The rungs to try, best first (device-ladder.ts). */
      rungs: IRung[];
      /** URL of the folder holding onnxruntime's .wasm files (not a CDN). */
      wasmPaths?: string;
    }
  | {
      type: 'generate';
      id: number;
      messages: ITemplateMessage[];
      tools: ITemplateTool[];
      maxNewTokens: number;
      /** Sampling temperature; absent or 0: greedy. */
      temperature?: number;
    }
  /**
   * A raw-text completion (inline code completion, fill-in-the-middle).
   * `prompt` is tokenized as it is, with no chat template: the special
   * tokens written in it (Qwen's `<|fim_prefix|>`, `<|fim_suffix|>`,
   * `<|fim_middle|>`, …) become their ids, and the tokenizer's own
   * post-processor adds a BOS only where it adds one to any plain text.
   * Generated greedily, streamed as `token` events and ended with `done`:
   * `stop` at the first of the `stop` strings (which the text does not
   * include), at an end-of-text token (the model's end tokens and any
   * special token, none of which the text includes) or after `maxNewTokens`.
   *
   * One generation at a time, and the agent needs the model more: while a
   * chat turn (`generate`) runs or waits, a `complete` is answered at once
   * with `done`, reason `interrupted`, and no tokens; a `generate` that
   * arrives while a completion runs interrupts the completion. A
   * completion leaves the chat's KV cache as it was (local-model/raw-completion.ts).
   */
  | {
      type: 'complete';
      id: number;
      prompt: string;
      maxNewTokens: number;
      stop: string[];
    }
  /**
   * Stop a generation after the current token. With an `id`, only that
   * request's (running, or still waiting: it then ends at once as
   * `interrupted`); without one, whichever runs.
   */
  | { type: 'interrupt'; id?: number }
  /** Forget the cached prompt (KV cache). */
  | { type: 'reset' }
  /** Free the model; the worker is then ended. */
  | { type: 'dispose'; id: number };

/** Loading stages, for the progress bar. */
export type LoadStage = 'download' | 'compiling' | 'ready';

/** Worker → main thread. */
export type WorkerEvent =
  | {
      type: 'progress';
      id: number;
      stage: LoadStage;
      /** The file being fetched, in the download stage. */
      file?: string;
      /** Bytes of all files so far, and in all (0 when unknown). */
      loaded: number;
      total: number;
      /** 0–100. */
      percent: number;
    }
  | {
      type: 'fallback';
      id: number;
      failed: IRung;
      next: IRung;
      error: string;
    }
  | {
      type: 'loaded';
      id: number;
      rung: IRung;
      seconds: number;
      /** The prompt the template starts a turn with ends inside `<think>`. */
      startsInThinking: boolean;
      /** The tokenizer's end-of-turn tokens, dropped from the text. */
      endTokens: string[];
    }
  /**
   * Sent as the prompt goes into the model, before the first token: its size,
   * and how much of it the cache of the last turn already holds. Prompt
   * processing reports nothing more until the first token.
   */
  | { type: 'prompt'; id: number; promptTokens: number; reusedTokens: number }
  | { type: 'token'; id: number; text: string }
  | {
      type: 'done';
      id: number;
      reason: 'stop' | 'length' | 'interrupted';
      promptTokens: number;
      completionTokens: number;
      /** Prompt tokens whose KV cache was reused from the previous turn. */
      reusedTokens: number;
      seconds: number;
      /** Seconds to the first generated token. */
      firstTokenSeconds: number;
    }
  | { type: 'disposed'; id: number }
  | {
      type: 'error';
      id: number;
      message: string;
      /** The URL whose fetch failed, when a download failed. */
      url?: string;
      /** The device it failed on, in words ("WebGPU (q4)"), when one. */
      device?: string;
    };
