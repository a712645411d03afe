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
import { stdoutOf, type INotebookPort, type IRunResult } from '../ports';

/** DataFrames listed, and columns named per frame, at most. */
const MAX_FRAMES = 6;
const MAX_COLUMNS = 30;

/** Python that prints `[[name, [columns…], total], …]` for pandas DataFrames. */
export const FRAME_COLUMNS_CODE = `
def _notebook_agent_columns():
    import json, sys
    pd = sys.modules.get('pandas')
    rows = []
    if pd is not None:
        for name, value in list(get_ipython().user_ns.items()):
            if not name.startswith('_') and isinstance(value, pd.DataFrame):
                rows.append([name, [str(c) for c in value.columns[:${MAX_COLUMNS}]], len(value.columns)])
    print(json.dumps(rows[-${MAX_FRAMES}:]))
_notebook_agent_columns()
del _notebook_agent_columns
`.trim();

/** Whether a run ended with a KeyError. */
export function endedWithKeyError(result: IRunResult): boolean {
  return result.outputs.some(o => o.type === 'error' && o.ename === 'KeyError');
}

/** The note for the probe's output, or null when it shows no DataFrame. */
export function columnsNote(stdout: string): string | null {
  let rows: unknown;
  try {
    rows = JSON.parse(stdout.trim());
  } catch {
    return null;
  }
  if (!Array.isArray(rows) || !rows.length) {
    return null;
  }
  const lines: string[] = [];
  for (const row of rows) {
    if (
      !Array.isArray(row) ||
      typeof row[0] !== 'string' ||
      !Array.isArray(row[1])
    ) {
      return null;
    }
    const [name, columns, total] = row as [string, unknown[], number];
    const more = total > columns.length ? `, … (${total} in all)` : '';
    lines.push(
      `${name}: ${columns.map(c => JSON.stringify(String(c))).join(', ')}${more}`
    );
  }
  return `Columns of the DataFrames in the kernel now:\n${lines.join('\n')}`;
}

/** The columns note for the kernel now, or null (no pandas, no frames, or the probe failed). */
export async function frameColumns(
  notebook: INotebookPort,
  signal: AbortSignal
): Promise<string | null> {
  try {
    const result = await notebook.executeCode(FRAME_COLUMNS_CODE, {
      signal,
      silent: true,
      hardTimeoutMs: 10_000
    });
    const stdout = stdoutOf(result.outputs);
    return result.status === 'ok' ? columnsNote(stdout) : null;
  } catch {
    return null;
  }
}
