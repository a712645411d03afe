/**
 * The one Python probe of the kernel's variables, run silently (nothing
 * counted, nothing in the history), for its three readers: the
 * `inspect_variables` tool (the user's variables), a prompt's `@name`
 * mentions (the named ones) and the columns note after a `KeyError` (the
 * DataFrames). It prints JSON rows and defines nothing that outlives it;
 * each reader words the rows its own way.
 */
import type { INotebookPort } from '../ports';
import { stdoutOf } from '../ports';

/** One variable as the probe describes it. */
export interface IVariableRow {
  name: string;
  /** The top module and the class, e.g. `pandas.DataFrame`. */
  type?: string;
  shape?: number[];
  len?: number;
  /** The first columns as (name, dtype), and how many there are. */
  columns?: Array<[string, string]>;
  columnCount?: number;
  /** `repr()`, cut to the asked length. */
  repr?: string;
  /** Named, but not defined in the kernel. */
  missing?: boolean;
}

/** Which variables, and how much of each. */
export interface IProbeOptions {
  /** These names, in order (the missing ones say so); default: the user's variables. */
  names?: readonly string[];
  /** Only pandas DataFrames. */
  framesOnly?: boolean;
  /** Characters of `repr()` kept; 0 for none. */
  reprChars: number;
  /** Rows kept: the first ones, or the last ones with `framesOnly` (the newest frames). */
  limit: number;
}

/** Columns listed per variable, at most. */
const MAX_COLUMNS = 30;

/** The probe's Python for `options` (names are identifiers: see variableMentions). */
export function variablesProbeCode(options: IProbeOptions): string {
  const args = [
    options.names ? JSON.stringify(options.names) : 'None',
    options.framesOnly ? 'True' : 'False',
    String(
      options.reprChars > 0 ? Math.max(8, Math.floor(options.reprChars)) : 0
    ),
    String(Math.max(1, Math.floor(options.limit)))
  ].join(', ');
  return `
def _notebook_agent_probe(names, frames_only, repr_chars, limit):
    import json, sys, types
    ip = get_ipython()
    ns = ip.user_ns
    hidden = getattr(ip, 'user_ns_hidden', {})
    pd = sys.modules.get('pandas')
    def describe(name, value):
        row = {'name': name, 'type': type(value).__module__.split('.')[0] + '.' + type(value).__name__}
        shape = getattr(value, 'shape', None)
        if isinstance(shape, tuple):
            row['shape'] = [int(s) for s in shape]
        else:
            try:
                row['len'] = len(value)
            except Exception:
                pass
        dtypes = getattr(value, 'dtypes', None)
        if dtypes is not None and hasattr(dtypes, 'items'):
            items = list(dtypes.items())
            row['columns'] = [[str(c), str(d)] for c, d in items[:${MAX_COLUMNS}]]
            row['columnCount'] = len(items)
        if repr_chars:
            try:
                text = repr(value)
            except Exception:
                text = '<unrepresentable>'
            row['repr'] = text if len(text) <= repr_chars else text[:repr_chars - 3] + '...'
        return row
    rows = []
    if names is not None:
        for name in names:
            rows.append(describe(name, ns[name]) if name in ns else {'name': name, 'missing': True})
    else:
        for name, value in list(ns.items()):
            if name.startswith('_') or name in hidden or name in ('In', 'Out', 'exit', 'quit', 'get_ipython'):
                continue
            if isinstance(value, (types.ModuleType, types.FunctionType, type)):
                continue
            if frames_only and not (pd is not None and isinstance(value, pd.DataFrame)):
                continue
            rows.append(describe(name, value))
    rows = rows[-limit:] if frames_only else rows[:limit]
    print(json.dumps(rows, default=str))
_notebook_agent_probe(${args})
del _notebook_agent_probe
`.trim();
}

/** The rows a probe printed, or null when its output is not the probe's. */
export function parseVariableRows(stdout: string): IVariableRow[] | null {
  let rows: unknown;
  try {
    rows = JSON.parse(stdout.trim());
  } catch {
    return null;
  }
  if (
    !Array.isArray(rows) ||
    !rows.every(
      row =>
        row !== null && typeof row === 'object' && typeof row.name === 'string'
    )
  ) {
    return null;
  }
  return rows as IVariableRow[];
}

/**
 * Run the probe silently; its rows, or null when the kernel could not
 * answer (busy past `timeoutMs`, no kernel, an error).
 */
export async function probeVariables(
  notebook: INotebookPort,
  options: IProbeOptions,
  signal: AbortSignal,
  timeoutMs: number
): Promise<IVariableRow[] | null> {
  try {
    const result = await notebook.executeCode(variablesProbeCode(options), {
      signal,
      silent: true,
      hardTimeoutMs: timeoutMs
    });
    return result.status === 'ok'
      ? parseVariableRows(stdoutOf(result.outputs))
      : null;
  } catch {
    return null;
  }
}

/** A shape as Python prints a tuple: `(3, 2)`, `(5,)`. */
export function shapeText(shape: ReadonlyArray<number>): string {
  return shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(', ')})`;
}
