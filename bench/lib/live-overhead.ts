/**
 * bench/agent-overhead.ts on the live port: the same two cells, timed
 * inside a JupyterLab page in headless Chromium (the extension's test hook
 * `overhead`, src/jupyter/testing/live-measures.ts), three ways interleaved:
 *  (a) raw: `kernel.requestExecute` + `await future.done` on the panel's
 *      kernel connection (nothing rendered);
 *  (a') Shift+Enter: `CodeCell.execute` on a cell with the same code (what
 *      the notebook does anyway: outputs rendered in the cell);
 *  (p) the port alone: LiveNotebookPort.runCell (the same Shift+Enter
 *      path, watched by the engine), no tool, no observation;
 *  (b) tool path: ToolRegistry.call('run_cell') → LiveNotebookPort.runCell
 *      → observation.
 * The agent's overhead is b − a' (what the agent adds to running the cell
 * in the notebook); b − a is printed too.
 */
import { openLabPage } from './lab-page';
import { fixed, print, summarize, target } from './report';

/** The samples the hook returns. */
interface ISamples {
  raw: number[];
  shiftEnter: number[];
  port: number[];
  tool: number[];
  observationChars: number;
}

/** Time `cases` on the live port, N rounds after `warmup`. */
export async function liveOverhead(
  cases: ReadonlyArray<{ name: string; code: string }>,
  rounds: number,
  warmup: number,
  targetMs: number
): Promise<void> {
  const lab = await openLabPage();
  try {
    print('\n=== live port (JupyterLab in headless Chromium) ===');
    for (const { name, code } of cases) {
      const samples = await lab.hook<ISamples>('overhead', code, rounds, warmup);
      const a = summarize(samples.raw);
      const s = summarize(samples.shiftEnter);
      const p = summarize(samples.port);
      const b = summarize(samples.tool);
      print(
        `\n${name}: N=${rounds}, warm-up ${warmup}; observation ${samples.observationChars} chars`
      );
      print(
        `(a)  raw requestExecute        median ${fixed(a.median)} ms  p90 ${fixed(a.p90)} ms`
      );
      print(
        `(a') Shift+Enter (rendered)    median ${fixed(s.median)} ms  p90 ${fixed(s.p90)} ms`
      );
      print(
        `(p)  LiveNotebookPort.runCell  median ${fixed(p.median)} ms  p90 ${fixed(p.p90)} ms`
      );
      print(
        `(b)  run_cell tool path        median ${fixed(b.median)} ms  p90 ${fixed(b.p90)} ms`
      );
      print(
        `overhead (b − a')              median ${fixed(b.median - s.median)} ms  ratio b/a' ${fixed(b.median / s.median)}x`
      );
      print(
        `overhead (b − a)               median ${fixed(b.median - a.median)} ms  ratio b/a ${fixed(b.median / a.median)}x`
      );
      // Each round times every path back to back, so a slow moment of the
      // machine hits the round's paths alike: the median of the per-round
      // differences is the steadier figure when runs vary by 100 ms.
      const paired = summarize(
        samples.tool.map((ms, i) => ms - samples.shiftEnter[i])
      );
      print(
        `paired (b − a') per round      median ${fixed(paired.median)} ms  p90 ${fixed(paired.p90)} ms`
      );
      target(
        `live ${name}: overhead over Shift+Enter, median`,
        b.median - s.median,
        targetMs,
        'at-most',
        ' ms'
      );
    }
  } finally {
    await lab.dispose();
  }
}
