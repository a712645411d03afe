/** Stream outputs with bounded memory, and the headless port's undo history. */
import { emptyNotebook } from '../notebook-file';
import { CellStore } from '../cell-store';
import {
  CappedStream,
  MAX_STREAM_CHARS,
  STREAM_TAIL_CHARS
} from '../stream-cap';
import { UndoHistory } from '../undo-history';

describe('CappedStream', () => {
  it('keeps short streams whole', () => {
    const stream = new CappedStream('a');
    stream.append('b\n');
    expect(stream.text).toBe('ab\n');
  });

  it('keeps the head and the tail of a flood, and counts what it dropped', () => {
    const stream = new CappedStream();
    const line = 'x'.repeat(1023) + '\n';
    for (let i = 0; i < 10_000; i++) {
      stream.append(i === 0 ? 'FIRST' + line : line);
    }
    stream.append('LAST\n');
    const text = stream.text;
    expect(text.startsWith('FIRST')).toBe(true);
    expect(text.endsWith('LAST\n')).toBe(true);
    expect(text.length).toBeLessThan(MAX_STREAM_CHARS + 2 * STREAM_TAIL_CHARS);
    const marker = /\n… \[(\d+) characters of output dropped[^\n]*\n/.exec(
      text
    )!;
    const total = 'FIRST'.length + 10_000 * line.length + 'LAST\n'.length;
    // Nothing is lost silently: what is kept plus what was dropped is all of it.
    expect(text.length - marker[0].length + Number(marker[1])).toBe(total);
  });
});

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
