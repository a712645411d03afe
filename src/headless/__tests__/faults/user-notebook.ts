/**
 * The user's notebook the fault cases work in, and the checks that nothing
 * of it was lost: every cell the user had is still there, in order, with a
 * byte-identical source, and the only other cells are the agent's.
 */
import { ContentsManager, type ServerConnection } from '@jupyterlab/services';
import type { ICellSnapshot } from '../../../agent/ports';
import { diffCells } from '../../../agent/workflows/cell-changes';

/** Sources meant to catch any normalization: CRLF, tabs, trailing blanks, non-ASCII, empty. */
export const USER_SOURCES: ReadonlyArray<{
  type: 'code' | 'markdown' | 'raw';
  source: string;
}> = [
  { type: 'markdown', source: '# Precious analysis  \n\nDo **not** lose me.' },
  {
    type: 'code',
    source: 'precious = {"a": 1, "b": [2, 3]}\r\nprint(precious)'
  },
  { type: 'code', source: '' },
  {
    type: 'code',
    source: 'def f(x):\n\treturn x * 2  \n\n# ünïcødé ✓ 漢字 🚀\n'
  },
  { type: 'raw', source: 'raw text\n\n' }
];

/** Write the user's notebook (nbformat 4.5, sources as line lists) at `path`. */
export async function writeUserNotebook(
  settings: ServerConnection.ISettings,
  path: string
): Promise<void> {
  const contents = new ContentsManager({ serverSettings: settings });
  try {
    await contents.save(path, {
      type: 'notebook',
      format: 'json',
      content: {
        nbformat: 4,
        nbformat_minor: 5,
        metadata: {
          kernelspec: { name: 'python3', display_name: 'Python 3' },
          user_tag: 'keep me'
        },
        cells: USER_SOURCES.map((cell, i) => ({
          id: `user-cell-${i}`,
          cell_type: cell.type,
          metadata: { tags: ['mine'] },
          source: cell.source.split(/(?<=\n)/),
          ...(cell.type === 'code'
            ? { outputs: [], execution_count: null }
            : {})
        }))
      }
    });
  } finally {
    contents.dispose();
  }
}

/** What a run did to the cells, as the checks need it. */
export interface INotebookDelta {
  /** The user's cells missing, edited or out of order. */
  lost: string[];
  /** Cells that were not there before (the agent's). */
  added: ICellSnapshot[];
}

/** Compare the cells before and after a run. */
export function notebookDelta(
  before: ReadonlyArray<ICellSnapshot>,
  after: ReadonlyArray<ICellSnapshot>
): INotebookDelta {
  const changes = diffCells(before, after);
  const lost = changes
    .filter(change => change.kind !== 'inserted')
    .map(change => change.cellId);
  const kept = new Set(before.map(cell => cell.id));
  const order = after.filter(cell => kept.has(cell.id)).map(cell => cell.id);
  const expected = before.map(cell => cell.id).filter(id => order.includes(id));
  if (order.join() !== expected.join()) {
    lost.push('(order changed)');
  }
  return {
    lost,
    added: after.filter(cell => !kept.has(cell.id))
  };
}

/** Ids and sources, the part of a notebook that undo must restore exactly. */
export function sourcesOf(
  cells: ReadonlyArray<ICellSnapshot>
): Array<[string, string]> {
  return cells.map(cell => [cell.id, cell.source]);
}

/** Sources of the notebook file on disk, read back through the contents API. */
export async function sourcesOnDisk(
  settings: ServerConnection.ISettings,
  path: string
): Promise<Array<[string, string]>> {
  const contents = new ContentsManager({ serverSettings: settings });
  try {
    const model = await contents.get(path, { content: true });
    const nb = model.content as {
      cells: Array<{ id: string; source: string | string[] }>;
    };
    return nb.cells.map(cell => [
      cell.id,
      Array.isArray(cell.source) ? cell.source.join('') : cell.source
    ]);
  } finally {
    contents.dispose();
  }
}
