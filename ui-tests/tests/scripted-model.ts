/**
 * Helpers to drive the scripted model server (tests/scripted_model_server.py).
 */
import type { APIRequestContext } from '@playwright/test';

/** The scripted model server of this copy of the suite (playwright.config.js: UI_PORT_OFFSET). */
export const MODEL_ROOT = `http://127.0.0.1:${8765 + Number(process.env.UI_PORT_OFFSET ?? 0)}`;

/** A request the scripted model received. */
export interface IRecordedRequest {
  path: string;
  headers: Record<string, string>;
  body: {
    model: string;
    messages: Array<{
      role: string;
      content: string | null;
      tool_call_id?: string;
    }>;
  };
}

/** Replace the script of the server at `root` (and clear its record). */
export async function scriptAt(
  root: string,
  request: APIRequestContext,
  turns: unknown[]
): Promise<void> {
  const response = await request.post(`${root}/_script`, {
    data: { turns }
  });
  if (!response.ok()) {
    throw new Error(`could not load the script: ${response.status()}`);
  }
}

/** The chat requests the server at `root` received since its script was loaded. */
export async function receivedAt<T = IRecordedRequest>(
  root: string,
  request: APIRequestContext
): Promise<T[]> {
  return (await request.get(`${root}/_requests`)).json();
}

/** Replace the script (and clear the record). */
export function script(
  request: APIRequestContext,
  turns: unknown[]
): Promise<void> {
  return scriptAt(MODEL_ROOT, request, turns);
}

/** The chat requests received since the script was loaded. */
export function received(
  request: APIRequestContext
): Promise<IRecordedRequest[]> {
  return receivedAt(MODEL_ROOT, request);
}
