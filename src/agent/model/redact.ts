/**
 * Keys out of error messages: some endpoints quote the key they rejected,
 * and the message goes to the chat transcript, which may be stored.
 */
import type { IStreamErrorBody } from './types';

interface IErrorShape {
  message?: string;
  error?: IStreamErrorBody | string | null;
}

/**
 * `error` with `secret` (the key the client sent) replaced in its message
 * and error body: some endpoints quote the key they rejected, and the
 * message goes to the chat transcript, which may be stored.
 */
export function redactSecret<T>(error: T, secret: string | undefined): T {
  if (!secret || secret.length < 8 || !error || typeof error !== 'object') {
    return error;
  }
  const shape = error as IErrorShape;
  const scrub = (text: string) => text.split(secret).join('[redacted]');
  try {
    if (typeof shape.message === 'string' && shape.message.includes(secret)) {
      shape.message = scrub(shape.message);
    }
    if (typeof shape.error === 'string') {
      shape.error = scrub(shape.error);
    } else if (shape.error && typeof shape.error.message === 'string') {
      shape.error = { ...shape.error, message: scrub(shape.error.message) };
    }
  } catch {
    // A read-only error object: leave it.
  }
  return error;
}
