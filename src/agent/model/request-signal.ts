/**
 * A signal of its own for one model request, aborted with the run's.
 *
 * The `openai` client adds an abort listener to the signal it is given and
 * never removes it (`fetchWithTimeout`, openai 6), so a run's signal gathered
 * one listener per model call for as long as the run lasted (Node warned at
 * the 11th: `MaxListenersExceededWarning`, seen in the eval and the CLI). Each
 * request gets this signal instead, and `release` takes the one link to the
 * run's signal away when the request is over.
 */
export interface IRequestSignal {
  signal: AbortSignal;
  release(): void;
}

/** A request's signal, aborted when `outer` aborts (at once if it has). */
export function requestSignal(outer: AbortSignal): IRequestSignal {
  const controller = new AbortController();
  const abort = () => controller.abort(outer.reason);
  if (outer.aborted) {
    abort();
  } else {
    outer.addEventListener('abort', abort, { once: true });
  }
  return {
    signal: controller.signal,
    release: () => outer.removeEventListener('abort', abort)
  };
}
