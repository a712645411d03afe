/**
 * Hooks for the UI tests, installed only when the server's page config
 * says `notebookAgentTestHooks: "true"` (the UI tests' server and the
 * browser benchmarks set it; see ui-tests/jupyter_server_test_config.py).
 * This module is a lazy chunk: a normal page never loads it.
 *
 * `window.notebookAgentTest` then offers:
 * - `runPortCase(name)`: run a case of the port contract
 *   (src/agent/testing/port-contract/) on the live port, each case in
 *   notebooks of its own opened in this JupyterLab (./live-harness.ts);
 * - `livePanels()`: how many notebook panels opened since the page loaded
 *   are closed yet still in memory (tracked with WeakRefs; call it after a
 *   garbage collection), to show that closed notebooks are released;
 * - the measurements of ./live-measures.ts (`overhead`, `stopIgnored`),
 *   for the browser benchmarks.
 */
import type { JupyterFrontEnd } from '@jupyterlab/application';
import type { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import type { INotebookPort } from '../../agent/ports';
import { portCase } from '../../agent/testing/port-contract/cases';
import {
  runPortCase,
  type CaseOutcome
} from '../../agent/testing/port-contract/contract';
import { liveHarness } from './live-harness';
import {
  overhead,
  stopIgnored,
  type IOverheadSamples,
  type IStopTimes,
  type OverheadPath
} from './live-measures';

/** What the hooks offer the tests. */
export interface INotebookAgentTestHooks {
  runPortCase(name: string): Promise<CaseOutcome>;
  livePanels(): { opened: number; closedInMemory: number };
  overhead(
    code: string,
    rounds: number,
    warmup: number,
    only?: OverheadPath
  ): Promise<IOverheadSamples>;
  stopIgnored(): Promise<IStopTimes>;
}

/** Install the hooks on `window.notebookAgentTest`. */
export function installTestHooks(
  app: JupyterFrontEnd,
  tracker: INotebookTracker,
  portFor: (panel: NotebookPanel) => Promise<INotebookPort | null>
): void {
  const panels: Array<WeakRef<NotebookPanel>> = [];
  tracker.widgetAdded.connect((_, panel) => panels.push(new WeakRef(panel)));
  tracker.forEach(panel => panels.push(new WeakRef(panel)));
  const harness = liveHarness(app, portFor);
  const hooks: INotebookAgentTestHooks = {
    runPortCase: name => runPortCase(harness, portCase(name)),
    livePanels: () => ({
      opened: panels.length,
      closedInMemory: panels.filter(ref => ref.deref()?.isDisposed).length
    }),
    overhead: (code, rounds, warmup, only) =>
      overhead(harness, code, rounds, warmup, only),
    stopIgnored: () => stopIgnored(harness)
  };
  Object.assign(window, { notebookAgentTest: hooks });
}
