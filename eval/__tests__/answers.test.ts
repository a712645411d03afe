import {
  extractAnswer,
  extractNamedAnswers,
  matches,
  parseNumber
} from '../src/answers';
import { fromJsonLines } from '../src/load';
import { costOf, priceOf } from '../../src/agent/model/prices';
import { taskPrompt } from '../src/runner';

describe('reading answers', () => {
  it('takes the last ANSWER line, without markdown around the value', () => {
    const text = 'First ANSWER: 3\nthen I fixed it.\n**ANSWER:** `1,234.50`.';
    expect(extractAnswer(text)).toBe('1,234.50');
    expect(extractAnswer('no answer here')).toBeNull();
  });

  it('reads DABench-style named answers', () => {
    const found = extractNamedAnswers('@mean_fare[34.65] and @count[ 12 ]');
    expect(found.get('mean_fare')).toBe('34.65');
    expect(found.get('count')).toBe('12');
  });

  it('parses numbers with separators, signs and units', () => {
    expect(parseNumber('1,234.5')).toBe(1234.5);
    expect(parseNumber('$3.20')).toBe(3.2);
    expect(parseNumber('-1e3')).toBe(-1000);
    expect(parseNumber('2024-07')).toBeNull();
  });

  it('compares numbers within tolerance and texts without case', () => {
    expect(matches('100.004', 100, { tolerance: 0.01 })).toBe(true);
    expect(matches('100.02', 100, { tolerance: 0.01 })).toBe(false);
    // Inclusive, whatever binary floating point makes of the difference.
    expect(matches('60.265', 60.27, { tolerance: 0.005 })).toBe(true);
    expect(matches('60.264', 60.27, { tolerance: 0.005 })).toBe(false);
    expect(matches('101', 100, { relative: 0.02 })).toBe(true);
    expect(matches(' south ', 'South')).toBe(true);
    expect(matches('North', 'South')).toBe(false);
    expect(matches(null, 1)).toBe(false);
  });
});

describe('external task sets (JSON Lines)', () => {
  it('loads question + file + answer rows', () => {
    const set = fromJsonLines(
      [{ id: 7, question: 'Mean of a?', file: 'd.csv', answer: '2.5' }],
      [],
      { name: 'ext', dataDir: '/data' }
    );
    expect(set.tasks).toEqual([
      {
        id: 'ext-7',
        prompt: 'Mean of a?',
        files: ['d.csv'],
        checker: {
          type: 'answer',
          expected: 2.5,
          relative: 0.001,
          tolerance: undefined
        },
        category: undefined
      }
    ]);
  });

  it('joins DABench questions with their labels as named answers', () => {
    const set = fromJsonLines(
      [
        {
          id: 0,
          question: 'Mean fare?',
          format: '@mean_fare[value]',
          file_name: 'titanic.csv',
          level: 'easy'
        }
      ],
      [{ id: 0, common_answers: [['mean_fare', '34.65']] }],
      { name: 'da-dev', dataDir: '/d' }
    );
    const task = set.tasks[0];
    expect(task.prompt).toBe('Mean fare?\nAnswer format: @mean_fare[value]');
    expect(task.checker).toMatchObject({ expected: { mean_fare: 34.65 } });
    expect(taskPrompt(task)).toContain('@mean_fare[value]');
  });

  it('refuses a row without an answer', () => {
    expect(() =>
      fromJsonLines([{ id: 1, question: 'q?' }], [], {
        name: 'x',
        dataDir: '/'
      })
    ).toThrow(/no answer/);
  });
});

describe('cost', () => {
  it('prices by the longest model-name prefix', () => {
    expect(priceOf('gpt-4o-mini-2024-07-18')).toEqual({
      prompt: 0.15,
      completion: 0.6
    });
    expect(costOf(priceOf('gpt-4o'), 1e6, 1e6)).toBeCloseTo(12.5);
    expect(costOf(priceOf('some-local-model'), 10, 10)).toBeNull();
  });
});
