/**
 * The first Send after JupyterLab's start, in headless Chromium: how long
 * from the Enter that sends the first prompt to the reply shown in the
 * sidebar, the prompt having been focused first (its first focus gets the
 * first reply ready: the model's library and, with the lazy core, what runs
 * a task).
 *
 * A private JupyterLab (port 8897) whose proxy points at the scripted model
 * server (port 8797; bench/lib/lab-server.ts), which answers the prompt
 * with one short text reply. Each load opens a notebook of its own (a fresh
 * chat; its kernel idle), in a fresh browser context (cold cache); the
 * sidebar is opened, the prompt clicked and a short prompt typed as a
 * person types (~25 characters a second), then Enter. The time is the
 * page's performance.now() from that Enter's keydown to the reply's text in
 * the transcript. After one warm-up round, N rounds are timed. Also shown:
 * the extension's JavaScript loaded from the prompt's focus to the reply
 * (decoded bytes of the responses under /lab/extensions/<extension>/).
 *
 * --compare DIR measures another build of the labextension too (a copy of
 * an earlier commit's jupyterlab_notebook_agent/labextension), linked on
 * the same server in turn with this checkout's: the two interleaved.
 * Target: this build no slower than DIR's by more than 100 ms (median).
 *
 * Run: npx tsx bench/first-send.ts [N] [--compare DIR]   (default N 10)
 */
import type { Browser } from '../ui-tests/node_modules/playwright-core';
import { launchChromium } from './lib/browser';
import {
  BUILD,
  EXTENSION,
  LabServer,
  ScriptedModelServer
} from './lib/lab-server';
import { ONE_CELL_NOTEBOOK, takeCompare } from './lib/notebook-json';
import { fixed, print, runMain, summarize, target } from './lib/report';

const args = process.argv.slice(2);
/** Another build to measure beside this checkout's (--compare DIR). */
const COMPARE = takeCompare(args);
const N = Number(args[0] ?? 10);
const SIDEBAR = 'notebook-agent-sidebar';
const NOTEBOOK = ONE_CELL_NOTEBOOK;

/** What one load measured. */
interface ISend {
  /** From Enter to the reply shown. */
  ms: number;
  /** The extension's JS loaded from the prompt's focus to the reply. */
  bytes: number;
}

/** One load: open `path`, focus the prompt, type, send. */
async function firstSend(
  browser: Browser,
  lab: LabServer,
  model: ScriptedModelServer,
  path: string
): Promise<ISend> {
  const reply = `Hello from ${path}.`;
  await model.script([{ content: reply }]);
  await lab.writeFile(path, JSON.stringify(NOTEBOOK));
  const context = await browser.newContext();
  const page = await context.newPage();
  try {
    await page.goto(`${lab.baseUrl}lab/tree/${path}?reset&token=${lab.token}`);
    await page.waitForSelector(
      '.jp-NotebookPanel .jp-Notebook-ExecutionIndicator[data-status="idle"]',
      { timeout: 60000 }
    );
    await page
      .locator(`.jp-SideBar .lm-TabBar-tab[data-id="${SIDEBAR}"]`)
      .click();
    const prompt = page.getByRole('textbox', { name: 'Ask Notebook Agent' });
    await prompt.waitFor({ state: 'visible', timeout: 30000 });
    const bodies: Array<Promise<number>> = [];
    page.on('response', response => {
      if (response.url().includes(`/lab/extensions/${EXTENSION}/`)) {
        bodies.push(
          response.body().then(
            body => body.length,
            () => 0
          )
        );
      }
    });
    await prompt.click();
    await prompt.pressSequentially('Say hello.', { delay: 40 });
    // A string: the bench is type-checked without the DOM's types.
    await page.evaluate(
      `document.addEventListener('keydown', event => {
         if (event.key === 'Enter' && !window.__sentAt) {
           window.__sentAt = performance.now();
         }
       }, true);`
    );
    await prompt.press('Enter');
    const shown = await page.waitForFunction(
      `[...(document.getElementById(${JSON.stringify(SIDEBAR)})
          ?.querySelectorAll('.jp-AgentSidebar-assistant') ?? [])]
         .some(item => item.textContent.includes(${JSON.stringify(reply)}))
       && performance.now() - window.__sentAt`,
      undefined,
      { polling: 'raf', timeout: 60000 }
    );
    const ms = (await shown.jsonValue()) as number;
    const bytes = (await Promise.all(bodies)).reduce((a, b) => a + b, 0);
    return { ms, bytes };
  } finally {
    await context.close();
    await lab.shutdownSessions().catch(() => undefined);
  }
}

async function main(): Promise<void> {
  if (!Number.isInteger(N) || N < 1) {
    throw new Error(
      'usage: npx tsx bench/first-send.ts [N>=1] [--compare DIR]'
    );
  }
  const model = await ScriptedModelServer.start(8797);
  let lab: LabServer | null = null;
  let browser: Browser | null = null;
  try {
    lab = await LabServer.start({
      port: 8897,
      env: {
        OPENAI_BASE_URL: `${model.root}/v1`,
        OPENAI_API_KEY: 'sk-bench',
        NOTEBOOK_AGENT_MODEL: 'scripted-model'
      }
    });
    browser = await launchChromium();
    const builds = [
      { name: 'this build', dir: BUILD },
      ...(COMPARE ? [{ name: COMPARE, dir: COMPARE }] : [])
    ];
    const samples = new Map<string, number[]>(builds.map(b => [b.name, []]));
    const loaded = new Map<string, number>();
    for (let round = 0; round <= N; round++) {
      for (let k = 0; k < builds.length; k++) {
        const build = builds[(round + k) % builds.length];
        await lab.linkBuild(build.dir);
        const sent = await firstSend(
          browser,
          lab,
          model,
          `first-send-${round}-${k}.ipynb`
        );
        loaded.set(build.name, sent.bytes);
        if (round > 0) {
          samples.get(build.name)!.push(sent.ms);
        }
      }
    }
    print(
      `first Send after start, prompt focused first: Enter to the reply shown, headless Chromium, N=${N} (+1 warm-up round), cold browser cache`
    );
    const medians = new Map<string, number>();
    for (const build of builds) {
      const s = summarize(samples.get(build.name)!);
      medians.set(build.name, s.median);
      print(
        `${build.name}: median ${fixed(s.median, 0)} ms  p90 ${fixed(s.p90, 0)} ms  min ${fixed(s.min, 0)} ms  max ${fixed(s.max, 0)} ms; ` +
          `JS loaded from the focus to the reply: ${fixed((loaded.get(build.name) ?? 0) / 1024, 1)} KB`
      );
    }
    if (COMPARE) {
      const slower = medians.get('this build')! - medians.get(COMPARE)!;
      print(`this build vs ${COMPARE}: ${fixed(slower, 0)} ms`);
      target(
        'first Send, slower than the other build by',
        slower,
        100,
        'at-most',
        ' ms'
      );
    }
  } finally {
    await browser?.close();
    await lab?.dispose();
    await model.stop();
  }
}

runMain(main);
