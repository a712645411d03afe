/**
 * A fetch-compatible function (the browser's, Node's, or a wrapper): what
 * the openai client is given, and what its wrappers (bounded chunks, the
 * idle timeout, the key kept out of requests) take and return.
 */
export type FetchLike = (
  input: string | URL | Request,
  init?: RequestInit
) => Promise<Response>;
