/**
 * One completion at a time, after the typing pauses: each new request
 * aborts the one before (its HTTP request or its generation in the worker
 * stops), waits the debounce, and only then starts work.
 */

/** Resolves after `ms`, or at once when `signal` aborts. */
export type Waiter = (ms: number, signal: AbortSignal) => Promise<void>;

const timerWait: Waiter = (ms, signal) =>
  new Promise(resolve => {
    if (signal.aborted) {
      resolve();
      return;
    }
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });

/** Debounces and cancels completion work. */
export class CompletionScheduler {
  private _current: AbortController | null = null;

  constructor(
    private readonly _delayMs: () => number,
    private readonly _wait: Waiter = timerWait
  ) {}

  /**
   * Run `work` once the debounce has passed with no later call; null when
   * a later call (or `cancel`) came first, before or during the work.
   */
  async schedule<T>(
    work: (signal: AbortSignal) => Promise<T>
  ): Promise<T | null> {
    this.cancel();
    const controller = new AbortController();
    this._current = controller;
    const signal = controller.signal;
    await this._wait(Math.max(0, this._delayMs()), signal);
    if (signal.aborted) {
      return null;
    }
    try {
      const result = await work(signal);
      return signal.aborted ? null : result;
    } catch (error) {
      if (signal.aborted) {
        return null;
      }
      throw error;
    } finally {
      if (this._current === controller) {
        this._current = null;
      }
    }
  }

  /** Abort the waiting or running request, if any. */
  cancel(): void {
    this._current?.abort();
    this._current = null;
  }

  /** Whether a request is waiting or running. */
  get pending(): boolean {
    return this._current !== null;
  }
}
