/** The headless port's undo history. */
import { emptyNotebook } from '../server-port/notebook-file';
import { CellStore } from '../server-port/cell-store';
import { UndoHistory } from '../server-port/undo-history';

describe('UndoHistory', () => {
  it('puts the cells back as they were when the outermost group began', () => {
    const doc = emptyNotebook('python3');
    const cells = new CellStore(doc, 'x.ipynb');
    const mine = cells.insert({ type: 'code', source: 'mine = 1\r\n' });
    const history = new UndoHistory(doc);
    history.begin();
    history.begin();
    cells.edit(mine.id, 'changed');
    cells.insert({ type: 'markdown', source: 'agent' });
    history.end();
    cells.delete(mine.id);
    history.end();
    expect(doc.cells).toHaveLength(1);
    expect(history.undo()).toBe(true);
    expect(cells.snapshots().map(c => [c.id, c.source])).toEqual([
      [mine.id, 'mine = 1\r\n']
    ]);
    expect(history.undo()).toBe(false);
  });
});
