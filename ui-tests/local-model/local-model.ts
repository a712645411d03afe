/**
 * Helpers of the local-model UI tests: the tiny test model's settings, and
 * recorders of what the sidebar showed (progress values, streamed text)
 * that run inside the page, so no quick change is missed between polls.
 */
import * as fs from 'fs';
import * as path from 'path';
import type { Page, Request } from '@playwright/test';

/** The sidebar widget id (public contract). */
export const SIDEBAR = 'notebook-agent-sidebar';

/** The tiny model's id: its folder under c.NotebookAgent.local_models_dir. */
export const TINY_MODEL = 'tiny-llama';

/** Where the Jupyter server serves the local models. */
export const MODELS_ROUTE = '/notebook-agent/models/';

/** Settings that select the tiny model, served by this Jupyter server. */
export function tinyModelSettings(
  maxNewTokens: number
): Record<string, unknown> {
  return {
    endpointMode: 'local',
    localModel: TINY_MODEL,
    localModelPath: 'notebook-agent/models/',
    localModelAllowRemote: false,
    localModels: [
      {
        id: TINY_MODEL,
        label: 'Tiny Llama (random weights)',
        params: '3 M',
        family: 'hermes',
        dtypes: ['q4', 'q8', 'fp32'],
        sizeMB: { q4: 18 },
        toolsReliable: false,
        contextTokens: 2048,
        maxNewTokens
      }
    ]
  };
}

/**
 * The extension's chunks that hold transformers.js or onnxruntime (and
 * their .wasm), read from the build: start-up must request none of them.
 */
export function heavyChunks(): string[] {
  const dir = path.resolve(
    __dirname,
    '../../jupyterlab_notebook_agent/labextension/static'
  );
  return fs.readdirSync(dir).filter(name => {
    if (name.endsWith('.wasm') || name.endsWith('.mjs')) {
      return true;
    }
    if (!name.endsWith('.js')) {
      return false;
    }
    const text = fs.readFileSync(path.join(dir, name), 'utf-8');
    return /InferenceSession|AutoModelForCausalLM|LocalModelWorker/.test(text);
  });
}

/** A request the browser made. */
export interface IRecordedRequest {
  url: string;
  /** Its Range header ('' for a whole file). */
  range: string;
}

/** Every request of the browser context (the worker's included). */
export function recordRequests(page: Page): IRecordedRequest[] {
  const requests: IRecordedRequest[] = [];
  page.context().on('request', (request: Request) =>
    requests.push({
      url: request.url(),
      range: request.headers().range ?? ''
    })
  );
  return requests;
}

/** What the in-page recorder saw. */
export interface IRecording {
  /** Values the progress bar took. */
  progress: number[];
  /** Status lines of the local model, in order, without repeats. */
  lines: string[];
  /** Lengths the last assistant message took while streaming. */
  lengths: number[];
}

/** Start recording the sidebar's local-model status and streamed text. */
export async function startRecording(page: Page): Promise<void> {
  await page.evaluate(id => {
    const root = document.getElementById(id)!;
    const seen = { progress: [], lines: [], lengths: [] } as {
      progress: number[];
      lines: string[];
      lengths: number[];
    };
    (window as unknown as { agentRecording: typeof seen }).agentRecording =
      seen;
    const look = () => {
      const bar = root.querySelector('progress');
      if (bar) {
        seen.progress.push(Number(bar.getAttribute('value')));
      }
      const line = root.querySelector('.jp-AgentSidebar-localModelLine');
      const text = line?.textContent ?? '';
      if (text && seen.lines[seen.lines.length - 1] !== text) {
        seen.lines.push(text);
      }
      const answers = root.querySelectorAll('.jp-AgentSidebar-assistant');
      const last = answers[answers.length - 1];
      const length = last?.textContent?.length ?? 0;
      if (length && seen.lengths[seen.lengths.length - 1] !== length) {
        seen.lengths.push(length);
      }
    };
    new MutationObserver(look).observe(root, {
      subtree: true,
      childList: true,
      characterData: true,
      attributes: true
    });
  }, SIDEBAR);
}

/** What was recorded since `startRecording`. */
export function recording(page: Page): Promise<IRecording> {
  return page.evaluate(
    () => (window as unknown as { agentRecording: IRecording }).agentRecording
  );
}
