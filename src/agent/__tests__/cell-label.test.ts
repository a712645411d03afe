import type { ICellSnapshot } from '../ports';
import { cellNumber, firstLine, fixRequestLine } from '../workflows/cell-label';

const cell = (
  id: string,
  source: string,
  executionCount: number | null = null
): ICellSnapshot => ({
  id,
  type: 'code',
  source,
  executionCount,
  outputs: []
});

describe('cells named as the user sees them', () => {
  const cells = [
    { ...cell('m', '# Title'), type: 'markdown' as const },
    cell('ran', 'import pandas as pd', 3),
    cell('new', 'df = pd.read_csv("x.csv")')
  ];

  it('names a cell by its execution count, else by its position counting every cell', () => {
    expect(cellNumber(cells, 'ran')).toBe('[3]');
    expect(cellNumber(cells, 'new')).toBe('3');
    expect(cellNumber(cells, 'gone')).toBeNull();
  });

  it('quotes the first line of code that is not blank, cut short', () => {
    expect(firstLine('\n   \n  x = 1\ny = 2')).toBe('x = 1');
    expect(firstLine('')).toBe('');
    const long = `result = ${'a + '.repeat(30)}b`;
    const quoted = firstLine(long);
    expect(quoted.length).toBeLessThanOrEqual(40);
    expect(quoted.endsWith('…')).toBe(true);
    expect(long.startsWith(quoted.slice(0, -1))).toBe(true);
  });

  it('says "Fix cell [3]: <first line>", never the cell id', () => {
    expect(fixRequestLine(cells, 'ran')).toBe(
      'Fix cell [3]: import pandas as pd'
    );
    expect(fixRequestLine(cells, 'new')).toBe(
      'Fix cell 3: df = pd.read_csv("x.csv")'
    );
    expect(fixRequestLine([cell('c1', '   ')], 'c1')).toBe('Fix cell 1');
    expect(fixRequestLine(cells, 'new')).not.toContain('new');
  });
});
