/**
 * Helpers to drive the scripted model server (tests/scripted_model_server.py).
 */
import type { APIRequestContext } from '@playwright/test';

export const MODEL_ROOT = 'http://127.0.0.1:8765';

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

/** Replace the script (and clear the record). */
export async function script(
  request: APIRequestContext,
  turns: unknown[]
): Promise<void> {
  const response = await request.post(`${MODEL_ROOT}/_script`, {
    data: { turns }
  });
  if (!response.ok()) {
    throw new Error(`could not load the script: ${response.status()}`);
  }
}

/** The chat requests received since the script was loaded. */
export async function received(
  request: APIRequestContext
): Promise<IRecordedRequest[]> {
  return (await request.get(`${MODEL_ROOT}/_requests`)).json();
}
