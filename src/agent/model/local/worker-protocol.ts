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
  /** Stop the running generation after the current token. */
  | { type: 'interrupt' }
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
