/**
 * Failures of a model stream that had started: it stalled, broke off, or
 * was not a chat-completions stream at all. Classified here for
 * errors.ts, which turns every model error into what the user reads.
 */
import type { IAgentError } from '../types';
import type { IStreamErrorBody } from './types';

interface IErrorShape {
  name?: string;
  message?: string;
  status?: number;
  error?: IStreamErrorBody | string | null;
  cause?: unknown;
  constructor?: { name?: string };
}

/**
 * The endpoint sent nothing for `idleMs` in the middle of an answer (or
 * before its first byte, once the headers had come): a stalled stream.
 */
export class ModelIdleTimeoutError extends Error {
  constructor(readonly idleMs: number) {
    super(`The model endpoint sent nothing for ${formatSeconds(idleMs)}`);
    this.name = 'ModelIdleTimeoutError';
  }
}

/**
 * The endpoint answered 200 with something that is not a chat-completions
 * stream: malformed SSE (an event that is not JSON) or no events at all
 * (an HTML page, a wrong URL behind a web server).
 */
export class ModelProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ModelProtocolError';
  }
}

/** What a dropped connection looks like in Node (undici), Chromium and Firefox. */
const BROKEN_OFF =
  /^terminated$|other side closed|ECONNRESET|socket hang up|premature close|^network error$|Error in input stream/i;

const BROKE_OFF_HINT =
  'The answer so far is shown above; nothing of the cut-off part was run. Try again; if it keeps ' +
  'happening, check the model server (it may have crashed or run out of memory) and any proxy in between.';

/** "1.5 s", "20 s", "2 min". */
export function formatSeconds(ms: number): string {
  const s = ms / 1000;
  if (s < 10) {
    return `${Number(s.toFixed(1))} s`;
  }
  return s < 120 ? `${Math.round(s)} s` : `${Math.round(s / 60)} min`;
}

/** The messages of an error and of its causes, outermost first. */
export function causeChain(error: unknown): string[] {
  const messages: string[] = [];
  let current = error as IErrorShape | null | undefined;
  for (let depth = 0; current && depth < 5; depth++) {
    if (typeof current.message === 'string' && current.message) {
      messages.push(current.message);
    }
    current = current.cause as IErrorShape | null | undefined;
  }
  return messages;
}

/**
 * Failures of a stream that had started: stalled, broken off, or not a
 * chat-completions stream at all. Null for anything else.
 */
export function describeStreamFailure(error: unknown): IAgentError | null {
  const shape = (error ?? {}) as IErrorShape;
  if (
    error instanceof ModelIdleTimeoutError ||
    shape.name === 'ModelIdleTimeoutError'
  ) {
    return {
      kind: 'timeout',
      message: `${shape.message} in the middle of its answer, so the run was stopped (a stalled stream).`,
      hint:
        'The answer so far is shown above. Try again; if it stalls again, the model server is stuck or ' +
        'overloaded: check its logs. A slow model on a CPU may need minutes for a long prompt: raise ' +
        '"Model stall timeout" in the settings (a smaller context also helps).'
    };
  }
  if (
    error instanceof ModelProtocolError ||
    shape.name === 'ModelProtocolError'
  ) {
    return {
      kind: 'bad-response',
      message: `The model endpoint's answer is not a valid chat-completions stream: ${shape.message}`,
      hint:
        'Check that the base URL is the endpoint’s OpenAI-compatible API (it usually ends in /v1) and that ' +
        'no proxy or gateway in between rewrites or cuts the stream.'
    };
  }
  const body = typeof shape.error === 'object' ? shape.error : null;
  if (body?.type === 'upstream_stream_broken') {
    return {
      kind: 'unreachable',
      message: `The connection to the model endpoint broke off in the middle of its answer: ${body.message ?? ''}`,
      hint: BROKE_OFF_HINT
    };
  }
  // A connection error means no answer came at all: that is "unreachable".
  const noAnswer =
    (shape.constructor?.name ?? '').includes('Connection') ||
    shape.message === 'Connection error.';
  if (shape.status === undefined && !shape.error && !noAnswer) {
    const causes = causeChain(error);
    if (causes.some(message => BROKEN_OFF.test(message))) {
      return {
        kind: 'unreachable',
        message: `The connection to the model endpoint broke off in the middle of its answer (${causes.join(': ')}).`,
        hint: BROKE_OFF_HINT
      };
    }
  }
  return null;
}
