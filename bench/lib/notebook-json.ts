/**
 * The notebooks the browser benchmarks open: nbformat 4.5 with a Python 3
 * kernelspec, and the `--compare DIR` argument they share.
 */

/** An nbformat 4.5 notebook of these code cells (none: an empty notebook). */
export function notebookJson(
  cells: ReadonlyArray<{ id: string; source: string }> = []
): Record<string, unknown> {
  return {
    cells: cells.map(cell => ({
      cell_type: 'code',
      id: cell.id,
      source: cell.source,
      metadata: {},
      outputs: [],
      execution_count: null
    })),
    metadata: {
      kernelspec: {
        name: 'python3',
        display_name: 'Python 3',
        language: 'python'
      }
    },
    nbformat: 4,
    nbformat_minor: 5
  };
}

/** One code cell, `x = 1`: the notebook the start-up benchmarks load. */
export const ONE_CELL_NOTEBOOK = notebookJson([{ id: 'first', source: 'x = 1' }]);

/** `--compare DIR` taken out of `args` (another build to measure beside this checkout's), or null. */
export function takeCompare(args: string[]): string | null {
  const at = args.indexOf('--compare');
  return at >= 0 ? args.splice(at, 2)[1] : null;
}
