/**
 * Watching one execution as a tool call asks (INotebookPort's IRunOptions):
 * until it ends, or until the soft timeout, when the result says `running`
 * and the execution goes on (the next watch picks it up). The hard timeout
 * and the caller's abort signal stop it; once stopping, the watch waits for
 * the end, which the execution's grace period bounds (a soft timeout while
 * stopping never answers `running`).
 *
 * Pure (timers and the execution's own promise): the engine's executions
 * (src/kernel/watched-execution.ts) and the fake notebook's runs
 * (./testing/fake-runs.ts) are watched by this one function.
 */
import type { IRunOptions, IRunResult } from './ports';

/** What a watch needs of an execution. */
export interface IWatchable {
  /** Date.now() when the request was sent; the hard timeout counts from here. */
  readonly started: number;
  readonly finished: boolean;
  /** True once asked to stop. */
  readonly stopping: boolean;
  /** Resolves at the end (bounded once stopping); never rejects. */
  readonly done: Promise<void>;
  snapshot(): IRunResult;
  /** `byUser`: the user's Stop (the abort signal). */
  stop(
    reason: 'aborted' | 'timeout',
    interrupted: boolean,
    byUser: boolean
  ): void;
}

/** Watch `execution` as `options` say. */
export async function watchRun(
  execution: IWatchable,
  options: IRunOptions
): Promise<IRunResult> {
  const { signal, softTimeoutMs, hardTimeoutMs } = options;
  if (execution.finished) {
    return execution.snapshot();
  }
  const timers: Array<ReturnType<typeof setTimeout>> = [];
  const onAbort = () => execution.stop('aborted', false, true);
  try {
    signal?.addEventListener('abort', onAbort);
    if (signal?.aborted) {
      onAbort();
    }
    if (hardTimeoutMs !== undefined) {
      const left = hardTimeoutMs - (Date.now() - execution.started);
      timers.push(
        setTimeout(
          () => execution.stop('timeout', false, false),
          Math.max(0, left)
        )
      );
    }
    const soft = new Promise<'soft'>(resolve => {
      if (softTimeoutMs !== undefined) {
        timers.push(
          setTimeout(() => resolve('soft'), Math.max(0, softTimeoutMs))
        );
      }
    });
    const outcome = await Promise.race([
      execution.done.then(() => 'done' as const),
      soft
    ]);
    if (outcome === 'soft' && execution.stopping) {
      await execution.done;
    }
    return execution.snapshot();
  } finally {
    timers.forEach(clearTimeout);
    signal?.removeEventListener('abort', onAbort);
  }
}
