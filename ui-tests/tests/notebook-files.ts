/**
 * A notebook the UI tests (and the walk) put on the server themselves:
 * uploaded, then opened, because Galata's createNew renames "Untitled.ipynb"
 * while its session starts, and a reload would not find that kernel by path.
 */
import type { IJupyterLabPageFixture } from '@jupyterlab/galata';

/** One empty code cell and a Python 3 kernelspec. */
const EMPTY_NOTEBOOK = {
  cells: [
    {
      cell_type: 'code',
      source: '',
      metadata: {},
      outputs: [],
      execution_count: null
    }
  ],
  metadata: { kernelspec: { name: 'python3', display_name: 'Python 3' } },
  nbformat: 4,
  nbformat_minor: 5
};

/** Upload an empty notebook at `path` (relative to the server root) and open it. */
export async function openEmptyNotebook(
  page: IJupyterLabPageFixture,
  path: string
): Promise<void> {
  await page.contents.uploadContent(
    JSON.stringify(EMPTY_NOTEBOOK),
    'text',
    path
  );
  await page.notebook.openByPath(path);
}
