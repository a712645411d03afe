/**
 * The live notebook's lifecycle, in headless Chromium with this
 * checkout's extension (bench/lib/lab-page.ts):
 *
 * 1. Memory: open and close notebooks as a user does (each with its
 *    kernel, one cell run, saved, its tab closed), 20 at a time, and read
 *    the page's JS heap after two full garbage collections (CDP
 *    HeapProfiler.collectGarbage, then Runtime.getHeapUsage): after a
 *    warm-up round (JupyterLab loads the notebook code on first use), then
 *    after 20 and 40 more notebooks; the same again in the same page
 *    reloaded without the extension (its labextension unlinked), as the
 *    baseline of JupyterLab's own. Also how many of the closed panels are
 *    still in memory (WeakRefs the extension's test hook keeps). Targets:
 *    no closed panel in memory; the extension adds at most 20 KB per
 *    notebook to JupyterLab's own growth.
 * 2. Stop with code that ignores SIGINT: the agent's cell runs
 *    `signal.signal(SIGINT, SIG_IGN)` in a loop; the user's Stop (the run's
 *    abort signal) interrupts, waits the grace period (3 s), then restarts
 *    the kernel. Times from the Stop to the run's end and to an idle
 *    kernel, N rounds. Target: idle ≤ grace + 1 s.
 *
 * Run: npx tsx bench/live-lifecycle.ts [NOTEBOOKS] [STOP_ROUNDS]   (default 20 3)
 */
import { openLabPage, type ILabPage } from './lib/lab-page';
import { openAndCloseNotebooks, retainedPanels } from './lib/notebook-cycles';
import { fixed, print, runMain, summarize, target } from './lib/report';

const NOTEBOOKS = Number(process.argv[2] ?? 20);
const STOP_ROUNDS = Number(process.argv[3] ?? 3);
const GRACE_MS = 3000;
const KB = 1024;

interface IHeapRun {
  heaps: number[];
  /** Closed panels still in memory, of the 2 + 2 × NOTEBOOKS opened. */
  retained: number;
}

/** Warm up, then read the heap after each of two rounds of NOTEBOOKS. */
async function heapRun(lab: ILabPage): Promise<IHeapRun> {
  await openAndCloseNotebooks(lab.page, 2);
  const heaps = [await lab.heapAfterGc()];
  for (let round = 1; round <= 2; round++) {
    await openAndCloseNotebooks(lab.page, NOTEBOOKS);
    heaps.push(await lab.heapAfterGc());
  }
  // As the UI test does: let timers that still hold the last panel
  // (autosave, status debouncers) fire, then collect again.
  await lab.page.waitForTimeout(2000);
  await lab.heapAfterGc();
  return { heaps, retained: await retainedPanels(lab.page) };
}

function report(label: string, run: IHeapRun): number {
  const mb = (bytes: number) => fixed(bytes / KB / KB, 2);
  const perNotebook = (run.heaps[2] - run.heaps[0]) / (2 * NOTEBOOKS);
  print(
    `${label.padEnd(18)} JS heap after warm-up ${mb(run.heaps[0])} MB, +${NOTEBOOKS} notebooks ${mb(run.heaps[1])} MB, +${2 * NOTEBOOKS} ${mb(run.heaps[2])} MB; ${fixed(perNotebook / KB, 1)} KB per notebook` +
      `; closed panels still in memory: ${run.retained} of ${2 + 2 * NOTEBOOKS}`
  );
  return perNotebook;
}

async function main(): Promise<void> {
  const lab = await openLabPage(['--LabApp.expose_app_in_browser=True']);
  try {
    if (NOTEBOOKS > 0) {
      await heapFigures(lab);
    }
    if (STOP_ROUNDS > 0) {
      await stopFigures(lab);
    }
  } finally {
    await lab.dispose();
  }
}

/** The heap with the extension, then on a server without it (the baseline). */
async function heapFigures(lab: ILabPage): Promise<void> {
  const withExtension = await heapRun(lab);
  const bare = await openLabPage(['--LabApp.expose_app_in_browser=True'], {
    extension: false,
    port: 8898
  });
  let without: IHeapRun;
  try {
    const loaded = await bare.page.evaluate(
      "'notebookAgentTest' in window || !!document.getElementById('notebook-agent-sidebar')"
    );
    if (loaded) {
      throw new Error('the extension is loaded on the server without it');
    }
    without = await heapRun(bare);
  } finally {
    await bare.dispose();
  }
  print(
    'notebooks opened and closed (kernel, one cell run, saved, tab closed), heap after 2 full GCs:'
  );
  const perWith = report('with extension', withExtension);
  const perWithout = report('without extension', without);
  target(
    'closed panels in memory, extension vs without',
    withExtension.retained - without.retained,
    0,
    'at-most'
  );
  target(
    'heap per notebook, extension vs without',
    (perWith - perWithout) / KB,
    20,
    'at-most',
    ' KB'
  );
}

/** The user's Stop on code that ignores SIGINT, STOP_ROUNDS times. */
async function stopFigures(lab: ILabPage): Promise<void> {
  const toEnd: number[] = [];
  const toIdle: number[] = [];
  for (let i = 0; i < STOP_ROUNDS; i++) {
    const stop = await lab.hook<{
      toEnd: number;
      toIdle: number;
      status: string;
      statuses: string[];
    }>('stopIgnored');
    if (stop.status !== 'aborted (kernel restarted)') {
      throw new Error(`the stopped run ended as ${stop.status}`);
    }
    print(
      `Stop ${i + 1}: run ended at ${fixed(stop.toEnd, 0)} ms, kernel idle at ${fixed(stop.toIdle, 0)} ms; statuses: ${stop.statuses.join(' ')}`
    );
    toEnd.push(stop.toEnd);
    toIdle.push(stop.toIdle);
  }
  const end = summarize(toEnd);
  const idle = summarize(toIdle);
  print(
    `Stop on code that ignores SIGINT (N=${STOP_ROUNDS}, grace ${GRACE_MS} ms): run ended after median ${fixed(end.median, 0)} ms, kernel idle after median ${fixed(idle.median, 0)} ms (max ${fixed(idle.max, 0)} ms)`
  );
  target('Stop → kernel idle', idle.median, GRACE_MS + 1000, 'at-most', ' ms');
}

runMain(main);
