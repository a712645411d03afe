/**
 * Turns whatever a model client threw into a message the user can act on.
 *
 * Classification is by shape (HTTP `status`, the error body's `type`, the
 * error's class name) so the core needs no import of the `openai` package.
 */
import type { IAgentError } from '../types';
import { retryAfterMs } from './retry-after';
import {
  causeChain,
  describeStreamFailure,
  formatSeconds
} from './stream-errors';
import type { IStreamErrorBody } from './types';

export { ModelIdleTimeoutError, ModelProtocolError } from './stream-errors';
export { redactSecret } from './redact';

interface IErrorShape {
  name?: string;
  message?: string;
  status?: number;
  error?: IStreamErrorBody | string | null;
  headers?: unknown;
  cause?: unknown;
  constructor?: { name?: string };
}

/** Error thrown when the client cannot even be built from the settings. */
export class ModelConfigError extends Error {
  constructor(
    message: string,
    readonly hint: string
  ) {
    super(message);
    this.name = 'ModelConfigError';
  }
}

/**
 * An error object the server sent inside a 200 stream, after some of the
 * answer may already have arrived. Shaped like the SDK's APIError for the
 * same event (no `status`, the body in `error`) so both classify alike.
 */
export class ModelStreamError extends Error {
  readonly error: IStreamErrorBody | string;

  constructor(error: IStreamErrorBody | string) {
    super(
      typeof error === 'string'
        ? error
        : (error.message ?? JSON.stringify(error))
    );
    this.name = 'ModelStreamError';
    this.error = error;
  }
}

const SETTINGS =
  'Settings > Settings Editor > Notebook Agent, or the server environment';

/**
 * The browser could not even talk to the endpoint in direct mode: usually
 * CORS (the page's origin is not allowed) or the server is down.
 */
export class DirectFetchError extends Error {
  constructor(
    readonly baseUrl: string,
    cause: unknown
  ) {
    super(
      `The browser could not reach ${baseUrl}: ${(cause as Error)?.message ?? String(cause)}`
    );
    this.name = 'DirectFetchError';
  }
}

/** Classify an error thrown while talking to the model. */
export function describeModelError(error: unknown): IAgentError {
  const cause = (error as { cause?: unknown } | null)?.cause;
  const direct =
    error instanceof DirectFetchError
      ? error
      : cause instanceof DirectFetchError
        ? cause
        : null;
  if (direct) {
    return {
      kind: 'unreachable',
      message: `${direct.message}. Either the server is not running, or it does not allow requests from this page (CORS).`,
      hint:
        'Use proxy mode (recommended: the Jupyter server makes the request, no CORS involved), or allow this ' +
        'origin on the model server: Ollama OLLAMA_ORIGINS=*, vLLM --allowed-origins, llama.cpp server --cors ' +
        '(llama-cpp-python allows all origins by default), LM Studio "Enable CORS".'
    };
  }
  if (error instanceof ModelConfigError) {
    return { kind: 'not-configured', message: error.message, hint: error.hint };
  }
  const special = describeStreamFailure(error);
  if (special) {
    return special;
  }
  const shape = (error ?? {}) as IErrorShape;
  const className = shape.constructor?.name ?? shape.name ?? '';
  const body = typeof shape.error === 'object' ? shape.error : null;
  const detail =
    (typeof shape.error === 'string' ? shape.error : body?.message) ??
    shape.message ??
    String(error);
  const type = body?.type;
  const status = shape.status;

  if (type === 'not_configured') {
    return {
      kind: 'not-configured',
      message: 'No model endpoint is configured.',
      hint: detail
    };
  }
  if (type === 'endpoint_unreachable') {
    return {
      kind: 'unreachable',
      message: 'The model endpoint could not be reached.',
      hint: detail
    };
  }
  if (type === 'endpoint_not_allowed') {
    return {
      kind: 'forbidden',
      message: 'The Jupyter server refused to forward to that endpoint.',
      hint: detail
    };
  }
  if (status === undefined && shape.error) {
    // No HTTP status but an error body: the server sent `{"error": …}` inside
    // a 200 stream (the SDK throws that as an APIError without a status), so
    // the answer broke off part-way; its numeric `code`, if any, says why.
    const code = Number(body?.code);
    return {
      kind:
        code === 429 ? 'rate-limit' : code === 400 ? 'bad-request' : 'server',
      message: `The model server failed in the middle of its answer: ${detail}`,
      hint: 'The answer so far is shown above. Try again; if it keeps failing, check the model server’s logs.'
    };
  }
  if (status === 401) {
    return {
      kind: 'auth',
      message: `The model endpoint rejected the API key (401): ${detail}`,
      hint:
        'Check the key: set OPENAI_API_KEY in the environment of the Jupyter ' +
        `server (or c.NotebookAgent.api_key) and restart it, or check ${SETTINGS}.`
    };
  }
  if (status === 403) {
    return {
      kind: 'forbidden',
      message: `The model endpoint refused the request (403): ${detail}`,
      hint: 'Check that the key has access to this model.'
    };
  }
  if (status === 404 && /model/i.test(detail)) {
    return {
      kind: 'unknown-model',
      message: `The endpoint does not know this model: ${detail}`,
      hint: `Pick one of the endpoint's models in ${SETTINGS} (Model).`
    };
  }
  if (
    (status === 400 || status === 413) &&
    /context.?length|maximum context|context window|too many tokens|prompt is too long/i.test(
      detail
    )
  ) {
    return {
      kind: 'context-overflow',
      message: `The conversation no longer fits the model's context window: ${detail}`,
      hint:
        'Start a new chat, or lower "Context window (tokens)" in the settings so that ' +
        'older outputs are elided sooner.'
    };
  }
  if (status === 404) {
    return {
      kind: 'bad-request',
      message: `The model endpoint answered 404: ${detail}`,
      hint: `Check the base URL (it usually ends in /v1) and the model name in ${SETTINGS}.`
    };
  }
  if (status === 429) {
    const wait = retryAfterMs(shape.headers);
    return {
      kind: 'rate-limit',
      message: `The model endpoint is rate limiting requests (429): ${detail}`,
      hint:
        wait !== null && wait > 0
          ? `The endpoint asks to wait ${formatSeconds(wait)} before trying again; then try again, or check your plan’s limits.`
          : 'Wait a moment and try again, or check your plan’s limits.'
    };
  }
  if (status !== undefined && status >= 400 && status < 500) {
    return {
      kind: 'bad-request',
      message: `The model endpoint rejected the request (${status}): ${detail}`,
      hint: `Check the model name and its support for tool calling in ${SETTINGS}.`
    };
  }
  if (status !== undefined && status >= 500) {
    return {
      kind: 'server',
      message: `The model endpoint failed (${status}): ${detail}`,
      hint: 'Try again; if it keeps failing, check the model server’s logs.'
    };
  }
  // Class names are minified in the browser bundle, so match the messages too.
  if (
    className.includes('Connection') ||
    /connection|fetch|network|timed out/i.test(detail)
  ) {
    // "Connection error." says little; the innermost cause says why.
    const causes = causeChain(error);
    const why =
      causes.length > 1 && causes[causes.length - 1] !== detail
        ? `${detail} (${causes[causes.length - 1]})`
        : detail;
    return {
      kind: 'unreachable',
      message: `The model endpoint could not be reached: ${why}`,
      hint: `Check that the model server is running and that the base URL in ${SETTINGS} points to it.`
    };
  }
  return {
    kind: 'unknown',
    message: `Something went wrong while talking to the model: ${detail}`,
    hint: 'Try again; if it keeps failing, check the browser console and the server log.'
  };
}

/** True for errors that mean "the user aborted", which are not failures. */
export function isAbortError(error: unknown): boolean {
  const shape = (error ?? {}) as IErrorShape;
  const name = shape.constructor?.name ?? shape.name ?? '';
  return (
    name === 'AbortError' ||
    name === 'APIUserAbortError' ||
    /^Request was aborted/.test(shape.message ?? '')
  );
}
