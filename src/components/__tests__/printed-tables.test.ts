import {
  fencePrintedTables,
  holdsPrintedTable
} from '../markdown/printed-tables';

// The tables below are what pandas 2 and NumPy printed (copied from a
// kernel), as small models paste them into an answer.
const FRAME = [
  '  region  units  unit_price  total_revenue',
  '0   East    297        2.50          742.5',
  '1   West    150        3.25          487.5',
  '2  North     88       10.00          880.0'
];
const SERIES = [
  'region',
  'East     297',
  'North     88',
  'West     150',
  'Name: units, dtype: int64'
];
const ONE_COLUMN = ['   units', '0    297', '1    150', '2     88'];
const LONG = [
  '    a  b',
  '0   0  0',
  '1   1  1',
  '.. .. ..',
  '8   8  8',
  '9   9  9'
];
const DESCRIBE = [
  '            units  unit_price',
  'count    3.000000    3.000000',
  'mean   178.333333    5.250000',
  'std    107.342132    4.130678'
];

const fenced = (lines: string[]): string[] => ['```text', ...lines, '```'];

describe('fencePrintedTables', () => {
  it('puts a DataFrame pasted into prose in a code block, prose around it as it was', () => {
    const block = [
      'The total revenue per region is:',
      ...FRAME,
      'North has the most revenue.'
    ].join('\n');
    expect(fencePrintedTables(block).split('\n')).toEqual([
      'The total revenue per region is:',
      ...fenced(FRAME),
      'North has the most revenue.'
    ]);
  });

  it('keeps a Series with its footer, a one-column header, describe() and a long frame', () => {
    expect(fencePrintedTables(SERIES.join('\n')).split('\n')).toEqual([
      'region',
      ...fenced(SERIES.slice(1))
    ]);
    expect(fencePrintedTables(ONE_COLUMN.join('\n')).split('\n')).toEqual(
      fenced(ONE_COLUMN)
    );
    expect(fencePrintedTables(DESCRIBE.join('\n')).split('\n')).toEqual(
      fenced(DESCRIBE)
    );
    expect(fencePrintedTables(LONG.join('\n')).split('\n')).toEqual(
      fenced(LONG)
    );
  });

  it('leaves prose, lists, Markdown tables and fenced code alone', () => {
    const untouched = [
      'Plain prose with no columns at all.',
      // Two spaces after a full stop, on lines that do not line up.
      'The mean is 5.  The median is 4.\nSo the data is skewed.  See the plot.',
      '- item  one\n- item  two',
      '1. first  step\n2. second  step',
      '| a  | b  |\n|----|----|\n| 1  | 2  |',
      'a    | b\n---- | ---\n1    | 2',
      '```\nx  = 1\ny  = 2\n```',
      '> quoted  text\n> more  text',
      // One line in columns is not a table.
      'units  297'
    ];
    for (const block of untouched) {
      expect(fencePrintedTables(block)).toBe(block);
    }
  });

  it('does not take a closing fence for a header, and fences two tables apart', () => {
    const block = ['```', 'code', '```', ...FRAME, 'and', ...ONE_COLUMN].join(
      '\n'
    );
    expect(fencePrintedTables(block).split('\n')).toEqual([
      '```',
      'code',
      '```',
      ...fenced(FRAME),
      'and',
      ...fenced(ONE_COLUMN)
    ]);
  });

  it('keeps a table that is still streaming in one block as it grows', () => {
    const partial = ['Result:', ...FRAME.slice(0, 2)].join('\n');
    expect(fencePrintedTables(partial).split('\n')).toEqual([
      'Result:',
      ...fenced(FRAME.slice(0, 2))
    ]);
    // One row so far: prose until a second row lines up with it.
    expect(fencePrintedTables(['Result:', FRAME[0]].join('\n'))).toBe(
      ['Result:', FRAME[0]].join('\n')
    );
  });
});

describe('holdsPrintedTable (a tool card keeps such an output unwrapped)', () => {
  it('finds a DataFrame, a Series or describe() in what a cell printed', () => {
    for (const table of [FRAME, SERIES, DESCRIBE, LONG]) {
      expect(holdsPrintedTable(['Loaded.', ...table, ''].join('\n'))).toBe(
        true
      );
    }
  });

  it('not a traceback, a log line or a single row', () => {
    const traceback = [
      "AttributeError: 'PeriodProperties' object has no attribute 'to_period'",
      'Traceback (most recent call last; 3 library frames omitted):',
      'Cell In[5], line 3',
      '      1 import matplotlib.pyplot as plt',
      '----> 3 plt.bar(month_revenue["date"], month_revenue["units"])'
    ].join('\n');
    expect(holdsPrintedTable(traceback)).toBe(false);
    expect(holdsPrintedTable('Epoch 1/3  loss: 0.52  accuracy: 0.81')).toBe(
      false
    );
    expect(holdsPrintedTable('')).toBe(false);
  });
});
