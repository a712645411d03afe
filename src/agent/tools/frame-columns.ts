/**
 * After a KeyError, the columns of the kernel's DataFrames, said under the
 * error: the usual cause is a column name that is not there (`'City'` for
 * `city`, a header a preamble or a wrong separator turned into one column),
 * and what fixes it is the names that are there.
 *
 * Measured with Qwen2.5-Coder-1.5B: told "print df.columns", it did not; it
 * tried `sep=`, `encoding=` and the same name again until the run ended.
 * Shown the names, any model can pick the right one. The probe reads the
 * kernel's namespace and prints JSON; it defines nothing that outlives it
 * and runs silently (no execution count, no history).
 */
import type { INotebookPort, IRunResult } from '../ports';
import {
  probeVariables,
  type IProbeOptions,
  type IVariableRow
} from './variables-probe';

/** The probe's question: the newest DataFrames, their columns, no repr. */
export const FRAME_PROBE: IProbeOptions = {
  framesOnly: true,
  reprChars: 0,
  limit: 6
};

/** Whether a run ended with a KeyError. */
export function endedWithKeyError(result: IRunResult): boolean {
  return result.outputs.some(o => o.type === 'error' && o.ename === 'KeyError');
}

/** The note for the probe's rows, or null when they show no DataFrame. */
export function columnsNote(
  rows: ReadonlyArray<IVariableRow> | null
): string | null {
  const frames = (rows ?? []).filter(row => Array.isArray(row.columns));
  if (!frames.length) {
    return null;
  }
  const lines = frames.map(({ name, columns = [], columnCount = 0 }) => {
    const more =
      columnCount > columns.length ? `, … (${columnCount} in all)` : '';
    return `${name}: ${columns.map(([c]) => JSON.stringify(String(c))).join(', ')}${more}`;
  });
  return `Columns of the DataFrames in the kernel now:\n${lines.join('\n')}`;
}

/** The columns note for the kernel now, or null (no pandas, no frames, or the probe failed). */
export async function frameColumns(
  notebook: INotebookPort,
  signal: AbortSignal
): Promise<string | null> {
  return columnsNote(
    await probeVariables(notebook, FRAME_PROBE, signal, 10_000)
  );
}
