/**
 * The bookkeeping of one generation, chat turn or completion alike: it
 * counts tokens and the first one's time, posts text, can be interrupted
 * after the current token, and posts `done` with the reason (interrupted
 * wins over `ended`, the caller's reading of how it stopped). The worker
 * (./model-worker.ts) knows it as the running one until it is released.
 */
import type { WorkerEvent } from '../agent/model/local/worker-protocol';
import type { ITransformersLike } from './transformers-like';

/** What a generation is: the agent's turn or an inline completion. */
export type GenerationKind = 'chat' | 'complete';

/** One generation's bookkeeping. */
export interface IGeneration {
  readonly stopping: { interrupt(): void };
  interrupted: boolean;
  generated: number;
  /** Post a piece of text (nothing for an empty one). */
  send(text: string): void;
  /** A token was generated. */
  counted(): void;
  /** Stop it after the current token (as `interrupted`). */
  interrupt(): void;
  /** It no longer runs: the worker's next message finds nothing to stop. */
  release(): void;
  /** Post `done`: `ended` unless it was interrupted. */
  done(
    ended: 'stop' | 'length',
    promptTokens: number,
    reusedTokens: number
  ): void;
}

/** Starts a generation's bookkeeping (the worker's `begin`). */
export type BeginGeneration = (
  id: number,
  kind: GenerationKind,
  started: number
) => IGeneration;

/**
 * A generation's bookkeeping: `id` is the request's, `started` when the
 * request began (the prompt's reading counts), `release` what the worker
 * does when it ends.
 */
export function startGeneration(
  lib: ITransformersLike,
  post: (event: WorkerEvent) => void,
  id: number,
  started: number,
  release: () => void
): IGeneration {
  const stopping = new lib.InterruptableStoppingCriteria();
  let firstToken = 0;
  const run: IGeneration = {
    stopping,
    interrupted: false,
    generated: 0,
    send: (text: string) => {
      if (text) {
        post({ type: 'token', id, text });
      }
    },
    counted: () => {
      run.generated++;
      firstToken ||= Date.now();
    },
    interrupt: () => {
      run.interrupted = true;
      stopping.interrupt();
    },
    release,
    done: (ended, promptTokens, reusedTokens) => {
      const seconds = (Date.now() - started) / 1000;
      post({
        type: 'done',
        id,
        reason: run.interrupted ? 'interrupted' : ended,
        promptTokens,
        completionTokens: run.generated,
        reusedTokens,
        seconds,
        firstTokenSeconds: firstToken ? (firstToken - started) / 1000 : seconds
      });
    }
  };
  return run;
}

/** A completion that does not run: answered at once, with no tokens. */
export function refusedCompletion(id: number): WorkerEvent {
  return {
    type: 'done',
    id,
    reason: 'interrupted',
    promptTokens: 0,
    completionTokens: 0,
    reusedTokens: 0,
    seconds: 0,
    firstTokenSeconds: 0
  };
}
