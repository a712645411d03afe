/**
 * A notebook the UI tests (and the walk) put on the server themselves:
 * uploaded, then opened, because Galata's createNew renames "Untitled.ipynb"
 * while its session starts, and a reload would not find that kernel by path.
 */
import type { IJupyterLabPageFixture } from '@jupyterlab/galata';

/** One code cell holding `source`, and a Python 3 kernelspec. */
function oneCellNotebook(source: string): object {
  return {
    cells: [
      {
        cell_type: 'code',
        source,
        metadata: {},
        outputs: [],
        execution_count: null
      }
    ],
    metadata: { kernelspec: { name: 'python3', display_name: 'Python 3' } },
    nbformat: 4,
    nbformat_minor: 5
  };
}

/** Upload a notebook of one code cell at `path` (relative to the server root) and open it. */
export async function openOneCellNotebook(
  page: IJupyterLabPageFixture,
  path: string,
  source: string
): Promise<void> {
  await page.contents.uploadContent(
    JSON.stringify(oneCellNotebook(source)),
    'text',
    path
  );
  await page.notebook.openByPath(path);
}

/** Upload an empty notebook at `path` (relative to the server root) and open it. */
export async function openEmptyNotebook(
  page: IJupyterLabPageFixture,
  path: string
): Promise<void> {
  await openOneCellNotebook(page, path, '');
}
