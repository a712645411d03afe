/**
 * Node's fetch for the headless port's requests to Jupyter, sending a
 * request once more on a new connection when the connection it went out on
 * was already closed by the server (a kept-alive socket of a server that
 * restarted or closed it at that moment: undici says "fetch failed", cause
 * "other side closed" or ECONNRESET). Only for methods whose repeat is
 * harmless (GET, HEAD, OPTIONS, PUT, DELETE): a POST (start a session, run
 * a restart) is never sent twice.
 *
 * It also keeps Stop working: @jupyterlab/services builds a Request from the
 * caller's signal and hands it to fetch, which copies it, and in Node 20's
 * undici a copy follows the first Request's signal through a WeakRef only
 * (nodejs/undici#4068): once that Request was garbage-collected, aborting
 * the caller's signal reached nothing and the request ran on (an MCP call
 * went on after Stop). `SignalKeepingRequest` (the settings' Request) keeps
 * the caller's signal, and every fetch here follows that signal directly.
 */

/** Where a SignalKeepingRequest keeps its caller's signal. */
const CALLER_SIGNAL = Symbol('callerSignal');

/** A Request that remembers the signal its caller gave (see above). */
export class SignalKeepingRequest extends Request {
  readonly [CALLER_SIGNAL]: AbortSignal | null;

  constructor(input: string | URL | Request, init?: RequestInit) {
    super(input, init);
    this[CALLER_SIGNAL] =
      init?.signal ??
      (input instanceof SignalKeepingRequest ? input[CALLER_SIGNAL] : null);
  }
}

/** Methods a second attempt cannot turn into a second effect. */
const REPEATABLE = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

/** Socket-level failures that mean the request may not have reached the server. */
const CLOSED_CONNECTION = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

/** True when `error` is fetch failing on a connection the other side closed. */
export function isClosedConnection(error: unknown): boolean {
  // By name, not instanceof: fetch's TypeError may come from another realm.
  const failure = error as { name?: string; cause?: { code?: string } } | null;
  const cause = failure?.cause;
  return (
    failure?.name === 'TypeError' &&
    typeof cause?.code === 'string' &&
    CLOSED_CONNECTION.has(cause.code)
  );
}

/** `fetch`, with one more attempt on a closed connection for repeatable methods. */
export async function retryingFetch(
  input: string | URL | Request,
  init?: RequestInit
): Promise<Response> {
  const method = (
    init?.method ?? (input instanceof Request ? input.method : 'GET')
  ).toUpperCase();
  // The caller's own signal, which every attempt follows directly.
  const signal =
    init?.signal ??
    (input instanceof SignalKeepingRequest ? input[CALLER_SIGNAL] : null);
  const following = signal ? { signal } : undefined;
  if (!REPEATABLE.has(method)) {
    return fetch(input, { ...init, ...following });
  }
  // A body the second attempt can send as it is (a notebook's JSON text is
  // most of them): no copy. A Request or a stream is cloned up front, which
  // holds a second copy of its body until the first attempt sent it.
  const body = init?.body;
  const plain =
    !(input instanceof Request) &&
    (body === undefined ||
      body === null ||
      typeof body === 'string' ||
      body instanceof ArrayBuffer ||
      ArrayBuffer.isView(body));
  const first = plain ? null : new Request(input, init);
  const spare = first?.clone();
  try {
    return await (first ? fetch(first, following) : fetch(input, init));
  } catch (error) {
    if (!isClosedConnection(error) || signal?.aborted) {
      throw error;
    }
    return spare ? fetch(spare, following) : fetch(input, init);
  }
}
