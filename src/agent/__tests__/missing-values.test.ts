import {
  allValuesMissing,
  MISSING_VALUES_REQUEST
} from '../context/missing-values';
import { toTextProtocol } from '../loop/text-protocol-messages';
import type { ChatMessage } from '../types';

/** What the 1.5B's `groupby('region')['units'].sum() * df['unit_price']` printed in the walk. */
const MISALIGNED = [
  'region',
  'East    NaN',
  'North   NaN',
  'South   NaN',
  'West    NaN',
  '0       NaN',
  '       ..',
  '195     NaN',
  '199     NaN',
  'Length: 204, dtype: float64'
].join('\n');

describe('an output of missing values only', () => {
  it('is a misaligned Series, a scalar NaN, a frame of NaN', () => {
    expect(allValuesMissing(MISALIGNED)).toBe(true);
    expect(allValuesMissing('nan')).toBe(true);
    expect(allValuesMissing('Total revenue: nan')).toBe(true);
    expect(
      allValuesMissing(
        '   units  price\nNorth    NaN    NaN\nSouth    NaN    NaN'
      )
    ).toBe(true);
    expect(allValuesMissing('2024-01   NaT\n2024-02   NaT')).toBe(true);
  });

  it('is not a result with numbers, a few gaps among numbers, or text', () => {
    expect(
      allValuesMissing(
        'region\nEast     7798.27\nNorth   10120.57\nName: revenue, dtype: float64'
      )
    ).toBe(false);
    // Rows with a missing email: the other columns hold numbers.
    expect(
      allValuesMissing(
        '   id  amount email\n3   3   12.5   NaN\n7   7   40.0   NaN'
      )
    ).toBe(false);
    expect(allValuesMissing('North')).toBe(false);
    // What a call that returns nothing prints: the cell did what it meant to.
    expect(allValuesMissing('None')).toBe(false);
    expect(allValuesMissing('')).toBe(false);
    // Index labels that are numbers do not count as values.
    expect(allValuesMissing('0    NaN\n1    NaN\n2    NaN')).toBe(true);
  });
});

describe('the small profile under such an output', () => {
  const request = 'Revenue (units × unit_price) per region in sales.csv?';
  const conversation = (output: string): ChatMessage[] => [
    { role: 'system', content: 's' },
    { role: 'user', content: request },
    {
      role: 'assistant',
      content: '```python\nprint(x)\n```',
      toolCalls: [{ id: 'c1', name: 'add_and_run_cell', arguments: '{}' }]
    },
    {
      role: 'tool',
      toolCallId: 'c1',
      content: `cell_id: c1 finished OK (execution count 3, took 0.1 s).\n${output}`
    }
  ];

  it('asks for corrected code, with the request, not for the answer', () => {
    const shown = toTextProtocol(conversation(MISALIGNED), {
      restateRequest: true
    });
    const last = shown[shown.length - 1].content;
    expect(last).toContain(`"""\n${request}\n"""`);
    expect(last).toContain(MISSING_VALUES_REQUEST);
    expect(last).not.toContain('reply now in words');
  });

  it('restates the request as before under numbers, and says nothing without the small profile', () => {
    const numbers = 'region\nEast    7798.27\nNorth  10120.57';
    const shown = toTextProtocol(conversation(numbers), {
      restateRequest: true
    });
    expect(shown[shown.length - 1].content).toContain('reply now in words');
    expect(shown[shown.length - 1].content).not.toContain(
      MISSING_VALUES_REQUEST
    );
    const plain = toTextProtocol(conversation(MISALIGNED));
    expect(plain[plain.length - 1].content).not.toContain(
      MISSING_VALUES_REQUEST
    );
  });

  it('leaves an error to the fix request', () => {
    const failed = conversation('');
    failed[3] = {
      role: 'tool',
      toolCallId: 'c1',
      content:
        'cell_id: c1 raised an error (execution count 3).\nnan\nKeyError: x'
    };
    const shown = toTextProtocol(failed, { restateRequest: true });
    expect(shown[shown.length - 1].content).not.toContain(
      MISSING_VALUES_REQUEST
    );
    expect(shown[shown.length - 1].content).toContain('KeyError: x');
  });
});
