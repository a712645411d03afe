import {
  activeMention,
  applyMention,
  assignedNames,
  mergeVariables,
  parseNameList,
  cellLabel,
  mentionOptions,
  type ICellChoice
} from '../prompt/mentions';
import { untranslated } from '../common/trans';

const cells: ICellChoice[] = [
  {
    id: 'a',
    index: 1,
    type: 'code',
    source: 'import pandas as pd\ndf = pd.read_csv("x.csv")'
  },
  { id: 'b', index: 2, type: 'markdown', source: '\n# Cleaning the data' },
  { id: 'c', index: 3, type: 'code', source: '' },
  { id: 'd', index: 12, type: 'code', source: 'df.plot()' }
];

describe('activeMention', () => {
  it('finds the @query the caret is in', () => {
    expect(activeMention('Look at @ce', 11)).toEqual({ start: 8, query: 'ce' });
    expect(activeMention('@', 1)).toEqual({ start: 0, query: '' });
    expect(activeMention('plot (@df', 9)).toEqual({ start: 6, query: 'df' });
    // The caret in the middle: only what is before it counts.
    expect(activeMention('see @cell3 now', 8)).toEqual({
      start: 4,
      query: 'cel'
    });
  });

  it('ignores e-mail addresses, finished mentions and text after a space', () => {
    expect(activeMention('mail me@example.com', 19)).toBeNull();
    expect(activeMention('What is @counts?', 16)).toBeNull();
    expect(activeMention('@df and more', 12)).toBeNull();
    expect(activeMention('no at sign', 10)).toBeNull();
  });
});

describe('cellLabel', () => {
  it('shows the position and the first line with text, clipped', () => {
    expect(cellLabel(cells[0])).toBe('Cell 1: import pandas as pd');
    expect(cellLabel(cells[1])).toBe('Cell 2 (markdown): # Cleaning the data');
    expect(cellLabel(cells[2])).toBe('Cell 3: (empty)');
    const long = cellLabel({ ...cells[3], source: 'x'.repeat(100) });
    expect(long).toBe(`Cell 12: ${'x'.repeat(59)}…`);
  });
});

describe('mentionOptions', () => {
  const labels = (
    query: string,
    variables = ['df', 'df_small', 'pd_version']
  ) => mentionOptions(cells, variables, query).map(o => o.label);

  it('offers everything for a bare @, variables first, cells in order', () => {
    expect(labels('')).toEqual([
      'Variable df',
      'Variable df_small',
      'Variable pd_version',
      'Cell 1: import pandas as pd',
      'Cell 2 (markdown): # Cleaning the data',
      'Cell 3: (empty)',
      'Cell 12: df.plot()'
    ]);
  });

  it('filters as the user types, best matches first', () => {
    expect(labels('1')).toEqual([
      'Cell 1: import pandas as pd',
      'Cell 12: df.plot()'
    ]);
    expect(labels('12')).toEqual(['Cell 12: df.plot()']);
    // Digits name a position, not code that contains them.
    expect(
      mentionOptions(
        [{ id: 'x', index: 1, type: 'code', source: 'values = [3, 1]' }],
        [],
        '3'
      )
    ).toEqual([]);
    expect(labels('cell2')).toEqual(['Cell 2 (markdown): # Cleaning the data']);
    expect(labels('DF')).toEqual([
      'Variable df',
      'Variable df_small',
      'Cell 12: df.plot()',
      // Only in the source, not the label: last.
      'Cell 1: import pandas as pd'
    ]);
    expect(labels('clean')).toEqual(['Cell 2 (markdown): # Cleaning the data']);
    expect(labels('nothing-like-this')).toEqual([]);
  });

  it('shows at most the limit', () => {
    const many = Array.from({ length: 50 }, (_, i) => `v${i}`);
    expect(mentionOptions(cells, many, 'v', untranslated, 20)).toHaveLength(20);
  });
});

describe('applyMention', () => {
  const [cellOption] = mentionOptions(cells, [], '3');
  const [variableOption] = mentionOptions(cells, ['counts'], 'cou');

  it('removes a picked cell’s @query, leaving one space', () => {
    const text = 'Explain @3 please';
    expect(
      applyMention(text, { start: 8, query: '3' }, 10, cellOption)
    ).toEqual({
      text: 'Explain please',
      caret: 8
    });
    expect(applyMention('@3', { start: 0, query: '3' }, 2, cellOption)).toEqual(
      {
        text: '',
        caret: 0
      }
    );
  });

  it('writes a picked variable as @name and a space', () => {
    expect(
      applyMention(
        'What is @cou',
        { start: 8, query: 'cou' },
        12,
        variableOption
      )
    ).toEqual({ text: 'What is @counts ', caret: 16 });
    expect(
      applyMention(
        'What is @cou now',
        { start: 8, query: 'cou' },
        12,
        variableOption
      )
    ).toEqual({ text: 'What is @counts now', caret: 16 });
  });
});

describe('assignedNames', () => {
  it('collects top-level assignments and import aliases, in order, without private names', () => {
    expect(
      assignedNames([
        'import pandas as pd\ndf = pd.read_csv("x.csv")\n_tmp = 1',
        'a, b = 1, 2\nn: int = 3\nif a == b:\n    inner = 4\ndf = df.dropna()',
        'from numpy import array as arr\nx == 1'
      ])
    ).toEqual(['pd', 'df', 'a', 'b', 'n', 'arr']);
  });
});

describe('kernel variables', () => {
  it('reads the names of a Python list repr, once each', () => {
    expect(parseNameList("['df', 'total', '_x1']")).toEqual([
      'df',
      'total',
      '_x1'
    ]);
    expect(parseNameList('[]')).toEqual([]);
    expect(parseNameList("['a', 'a', 'not a name']")).toEqual(['a']);
  });

  it('keeps the guesses the kernel confirms in notebook order, then its others; guesses alone without an answer', () => {
    expect(
      mergeVariables(['values', 'total', 'gone'], ['made', 'total', 'values'])
    ).toEqual(['values', 'total', 'made']);
    expect(mergeVariables(['values', 'gone'], null)).toEqual([
      'values',
      'gone'
    ]);
    expect(mergeVariables(['values'], [])).toEqual([]);
    const many = Array.from({ length: 500 }, (_, i) => `v${i}`);
    expect(mergeVariables([], many)).toHaveLength(200);
  });
});
