/**
 * JupyterLab start-up with and without Notebook Agent, in headless Chromium,
 * and the JavaScript the extension loads at start-up.
 *
 * Two private servers (bench/lib/lab-server.ts): one on 8897 with the
 * Python server extension, whose labextension is linked for "with" loads
 * and unlinked for "frontend off" loads (JupyterLab lists federated
 * extensions on every page load); one on 8898 with neither ("without":
 * as if never installed). Each round loads /lab/tree/start.ipynb (a
 * one-cell notebook; `?reset` gives a fresh workspace) once per
 * configuration, in rotating order, each in a fresh browser context (cold
 * cache). After one warm-up round, N rounds are timed.
 *
 * "Interactive" = the notebook's first cell has its editor and the kernel
 * indicator says idle: the time is performance.now() in the page when both
 * hold (from navigation start). The kernel session started by the warm-up
 * load stays up, so the figure is JupyterLab's own start plus connecting
 * to a running kernel, the part an extension can slow down.
 *
 * The extension's start-up JS: every response under
 * /lab/extensions/jupyterlab-notebook-agent/ during a "with" load (decoded
 * bytes). Targets: ≤ 3 % slower median, ≤ 150 KB loaded at start.
 *
 * --compare DIR adds a fourth configuration, "with DIR": another build of
 * the labextension (a copy of an earlier commit's
 * jupyterlab_notebook_agent/labextension), linked on the same server in
 * turn with this checkout's, so the two are measured interleaved.
 *
 * Run: npx tsx bench/lab-startup.ts [N] [--compare DIR]   (default N 10)
 */
import type { Browser } from '../ui-tests/node_modules/playwright-core';
import { launchChromium } from './lib/browser';
import { BUILD, EXTENSION, LabServer } from './lib/lab-server';
import { ONE_CELL_NOTEBOOK, takeCompare } from './lib/notebook-json';
import { fixed, print, runMain, summarize, target } from './lib/report';

const args = process.argv.slice(2);
/** Another build to measure beside this checkout's (--compare DIR). */
const COMPARE = takeCompare(args);
const N = Number(args[0] ?? 10);
const NOTEBOOK = ONE_CELL_NOTEBOOK;
const INTERACTIVE =
  "document.querySelector('.jp-NotebookPanel .jp-Cell .cm-content') && " +
  'document.querySelector(\'.jp-NotebookPanel .jp-Notebook-ExecutionIndicator[data-status="idle"]\') ' +
  '&& performance.now()';

interface ILoad {
  ms: number;
  extensionBytes: number;
  extensionFiles: string[];
}

async function load(browser: Browser, lab: LabServer): Promise<ILoad> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const bodies: Array<Promise<number>> = [];
  const files: string[] = [];
  page.on('response', response => {
    const url = response.url();
    if (url.includes(`/lab/extensions/${EXTENSION}/`)) {
      files.push(url.split('/').pop()!.split('?')[0]);
      bodies.push(
        response.body().then(
          body => body.length,
          () => 0
        )
      );
    }
  });
  try {
    await page.goto(
      `${lab.baseUrl}lab/tree/start.ipynb?reset&token=${lab.token}`
    );
    const handle = await page.waitForFunction(INTERACTIVE, undefined, {
      timeout: 60000,
      polling: 'raf'
    });
    const ms = (await handle.jsonValue()) as number;
    const bytes = (await Promise.all(bodies)).reduce((a, b) => a + b, 0);
    return { ms, extensionBytes: bytes, extensionFiles: files };
  } finally {
    await context.close();
  }
}

async function main(): Promise<void> {
  if (!Number.isInteger(N) || N < 1) {
    throw new Error(
      'usage: npx tsx bench/lab-startup.ts [N>=1] [--compare DIR]'
    );
  }
  const installed = await LabServer.start({ port: 8897 });
  let bare: LabServer | null = null;
  let browser: Browser | null = null;
  try {
    bare = await LabServer.start({
      port: 8898,
      labExtension: false,
      serverExtension: false
    });
    const notebook = JSON.stringify(NOTEBOOK);
    await installed.writeFile('start.ipynb', notebook);
    await bare.writeFile('start.ipynb', notebook);
    browser = await launchChromium();
    const configs: Array<{
      name: string;
      lab: LabServer;
      build: string | null;
    }> = [
      { name: 'with extension', lab: installed, build: BUILD },
      { name: 'frontend off (server ext on)', lab: installed, build: null },
      { name: 'without extension', lab: bare, build: null },
      ...(COMPARE
        ? [{ name: `with ${COMPARE}`, lab: installed, build: COMPARE }]
        : [])
    ];
    const samples = new Map<string, number[]>(configs.map(c => [c.name, []]));
    const startup = new Map<string, ILoad>();
    for (let round = 0; round <= N; round++) {
      for (let k = 0; k < configs.length; k++) {
        const config = configs[(round + k) % configs.length];
        if (config.lab === installed) {
          if (config.build) {
            await installed.linkBuild(config.build);
          } else {
            await installed.setExtensionEnabled(false);
          }
        }
        const result = await load(browser, config.lab);
        if (config.build) {
          startup.set(config.name, result);
        }
        if (round > 0) {
          samples.get(config.name)!.push(result.ms);
        }
      }
    }
    print(
      `time to an interactive notebook, headless Chromium, N=${N} (+1 warm-up round), cold browser cache`
    );
    const medians = new Map<string, number>();
    for (const config of configs) {
      const s = summarize(samples.get(config.name)!);
      medians.set(config.name, s.median);
      print(
        `${config.name.padEnd(30)} median ${fixed(s.median, 0)} ms  p90 ${fixed(s.p90, 0)} ms  min ${fixed(s.min, 0)} ms`
      );
    }
    const withExt = medians.get('with extension')!;
    const without = medians.get('without extension')!;
    const frontendOff = medians.get('frontend off (server ext on)')!;
    const cost = (100 * (withExt - without)) / without;
    print(
      `start-up cost: ${fixed(withExt - without, 0)} ms (${fixed(cost, 1)} %) vs without; ` +
        `frontend alone: ${fixed(withExt - frontendOff, 0)} ms (${fixed((100 * (withExt - frontendOff)) / frontendOff, 1)} %)`
    );
    target('start-up cost', cost, 3, 'at-most', ' %');
    if (COMPARE) {
      const other = medians.get(`with ${COMPARE}`)!;
      print(
        `this build vs ${COMPARE}: ${fixed(withExt - other, 0)} ms (${fixed((100 * (withExt - other)) / other, 1)} %)`
      );
      const loaded = startup.get(`with ${COMPARE}`);
      print(
        `${COMPARE}: extension JS loaded at start-up: ${fixed((loaded?.extensionBytes ?? 0) / 1024, 1)} KB in ${loaded?.extensionFiles.length ?? 0} files`
      );
    }
    const loaded = startup.get('with extension');
    const kb = (loaded?.extensionBytes ?? 0) / 1024;
    print(
      `extension JS loaded at start-up: ${fixed(kb, 1)} KB in ${loaded?.extensionFiles.length ?? 0} files (${loaded?.extensionFiles.join(', ')})`
    );
    target('extension JS at start-up', kb, 150, 'at-most', ' KB');
  } finally {
    await browser?.close();
    await bare?.dispose();
    await installed.dispose();
  }
}

runMain(main);
