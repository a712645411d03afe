/**
 * Measurements the browser benchmarks and UI tests make inside the page
 * (through ./test-hooks.ts), on the live port as the user's JupyterLab
 * runs it:
 * - `overhead`: the agent's cost per step on top of the kernel round trip,
 *   as bench/agent-overhead.ts measures it in Node: raw `requestExecute`,
 *   the cell run as Shift+Enter runs it (`CodeCell.execute`, output
 *   rendered), LiveNotebookPort.runCell, and the run_cell tool over it,
 *   interleaved in a rotating order, each timed from an idle page;
 * - `stopIgnored`: the user's Stop on code that ignores SIGINT, timed from
 *   the Stop to the run's end and to an idle kernel.
 */
import { CodeCell } from '@jupyterlab/cells';
import type { NotebookPanel } from '@jupyterlab/notebook';
import type { INotebookPort } from '../../agent/ports';
import type { IPortHarness } from '../../agent/testing/port-contract/contract';
import { PROGRAMS } from '../../agent/testing/port-contract/programs';
import { runCell } from '../../agent/tools/kernel-tools';
import { ToolRegistry, type ITool } from '../../agent/tools/registry';
import { RunState } from '../../agent/tools/run-state';

/** Timings in ms, one per round. */
export interface IOverheadSamples {
  raw: number[];
  shiftEnter: number[];
  port: number[];
  tool: number[];
  observationChars: number;
}

/** One of the notebook paths `overhead` times. */
export type OverheadPath = 'shiftEnter' | 'port' | 'tool';

/** The live harness with the panel of each port it opened. */
export interface ILiveHarness extends IPortHarness {
  panelOf(port: INotebookPort): NotebookPanel;
}

/**
 * Time `rounds` rounds of the three paths for `code`, after `warmup`
 * rounds; `only` times the raw round trip and that one path (a CPU profile
 * of one path: bench/agent-overhead.ts --profile).
 */
export async function overhead(
  harness: ILiveHarness,
  code: string,
  rounds: number,
  warmup: number,
  only?: OverheadPath
): Promise<IOverheadSamples> {
  const port = await harness.open([]);
  try {
    const panel = harness.panelOf(port);
    const kernel = panel.sessionContext.session!.kernel!;
    // One cell for every path: a second cell below a 1 MB output would sit
    // outside the viewport, where JupyterLab's windowed notebook renders
    // less, and the paths would not render the same thing.
    const cellId = (await port.insertCell({ type: 'code', source: code })).id;
    const widget = (id: string) =>
      panel.content.widgets.find(w => w.model.id === id) as CodeCell;
    const registry = new ToolRegistry([runCell] as ITool<never>[]);
    const context = {
      notebook: port,
      signal: new AbortController().signal,
      state: new RunState()
    };
    const args = JSON.stringify({ cell_id: cellId });
    const samples: IOverheadSamples = {
      raw: [],
      shiftEnter: [],
      port: [],
      tool: [],
      observationChars: 0
    };
    let tools = 0;
    const timed = async (run: () => Promise<void>): Promise<number> => {
      await settle();
      const t = performance.now();
      await run();
      return performance.now() - t;
    };
    const all: Array<{ key: OverheadPath; run: () => Promise<void> }> = [
      {
        key: 'shiftEnter',
        run: () =>
          CodeCell.execute(widget(cellId), panel.sessionContext).then(
            () => undefined
          )
      },
      { key: 'port', run: () => port.runCell(cellId).then(() => undefined) },
      {
        key: 'tool',
        run: async () => {
          const result = await registry.call(
            { id: `call-${tools++}`, name: 'run_cell', arguments: args },
            context
          );
          if (!result.ok) {
            throw new Error(`run_cell: ${result.output}`);
          }
          samples.observationChars = result.output.length;
        }
      }
    ];
    const paths = all.filter(path => !only || path.key === only);
    for (let i = 0; i < warmup + rounds; i++) {
      const raw = await timed(async () => {
        const reply = await kernel.requestExecute({ code }).done;
        if (reply.content.status !== 'ok') {
          throw new Error(`raw execute: ${reply.content.status}`);
        }
      });
      // The three notebook paths in turn, each round starting with the
      // next one (a path that always followed a rendered 1 MB would pay
      // for whatever page work that left behind).
      const times: Partial<Record<OverheadPath, number>> = {};
      for (let j = 0; j < paths.length; j++) {
        const path = paths[(i + j) % paths.length];
        times[path.key] = await timed(path.run);
      }
      if (i >= warmup) {
        samples.raw.push(raw);
        for (const path of paths) {
          samples[path.key].push(times[path.key]!);
        }
      }
    }
    return samples;
  } finally {
    await harness.close(port);
  }
}

/**
 * Resolves once the page has painted and gone idle, so that what a run left
 * to do (layout and paint of its outputs, the old outputs' removal,
 * garbage) is not timed as part of the next run.
 */
async function settle(): Promise<void> {
  await new Promise(resolve => requestAnimationFrame(resolve));
  await new Promise(resolve => requestIdleCallback(resolve, { timeout: 1000 }));
}

/** Times of the user's Stop, from the Stop (ms), and the kernel statuses seen meanwhile. */
export interface IStopTimes {
  toEnd: number;
  toIdle: number;
  status: string;
  statuses: string[];
}

/** The user's Stop on code that ignores SIGINT: ms to the run's end and to an idle kernel. */
export async function stopIgnored(harness: ILiveHarness): Promise<IStopTimes> {
  const port = await harness.open([]);
  try {
    const cellId = (
      await port.insertCell({ type: 'code', source: PROGRAMS.ignoresSigint })
    ).id;
    const controller = new AbortController();
    const running = port.runCell(cellId, { signal: controller.signal });
    const started = Date.now();
    const printed = async () =>
      JSON.stringify(
        (await port.getCells()).find(c => c.id === cellId)?.outputs
      ).includes('ignoring');
    while (!(await printed())) {
      if (Date.now() - started > 30000) {
        throw new Error('the code did not start');
      }
      await new Promise(resolve => setTimeout(resolve, 20));
    }
    const kernel = harness.panelOf(port).sessionContext.session!.kernel!;
    const stopped = performance.now();
    const statuses: string[] = [];
    const onStatus = (_: unknown, status: string) =>
      statuses.push(`${status}@${Math.round(performance.now() - stopped)}`);
    kernel.statusChanged.connect(onStatus);
    controller.abort();
    const result = await running;
    const toEnd = performance.now() - stopped;
    while (port.kernelState() !== 'idle') {
      await new Promise(resolve => setTimeout(resolve, 20));
    }
    const toIdle = performance.now() - stopped;
    kernel.statusChanged.disconnect(onStatus);
    return {
      toEnd,
      toIdle,
      status: `${result.status}${result.kernelRestarted ? ' (kernel restarted)' : ''}`,
      statuses
    };
  } finally {
    await harness.close(port);
  }
}
