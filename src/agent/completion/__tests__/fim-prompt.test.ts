import { fimFormatFor, PLAIN_FORMAT } from '../fim-format';
import {
  buildCompletion,
  CELL_MARKER,
  completionMode,
  type ICursorContext,
  wholeCharacters
} from '../fim-prompt';

const cursor = (over: Partial<ICursorContext> = {}): ICursorContext => ({
  before: 'df.groupby(',
  after: '\nprint(df)',
  cellsAbove: [],
  ...over
});

describe('fill-in-the-middle formats', () => {
  it.each([
    ['qwen2.5-coder-0.5b-instruct', 'qwen'],
    ['Qwen/Qwen2.5-Coder-1.5B', 'qwen'],
    ['qwen3-coder:30b', 'qwen'],
    ['codegemma:2b', 'qwen'],
    ['bigcode/starcoder2-3b', 'starcoder'],
    ['deepseek-coder-6.7b-base', 'deepseek'],
    ['codellama:7b-code', 'codellama'],
    ['codestral-latest', 'codestral'],
    ['gpt-4o-mini', 'plain'],
    ['qwen2.5:7b', 'plain']
  ])('%s → %s', (model, name) => {
    expect(fimFormatFor(model).name).toBe(name);
  });

  it('writes each family’s tokens around the hole, Codestral’s suffix first', () => {
    expect(fimFormatFor('qwen2.5-coder').prompt('a', 'b')).toBe(
      '<|fim_prefix|>a<|fim_suffix|>b<|fim_middle|>'
    );
    expect(fimFormatFor('starcoder2').prompt('a', 'b')).toBe(
      '<fim_prefix>a<fim_suffix>b<fim_middle>'
    );
    expect(fimFormatFor('codellama').prompt('a', 'b')).toBe(
      '<PRE> a <SUF>b <MID>'
    );
    expect(fimFormatFor('codestral').prompt('a', 'b')).toBe(
      '[SUFFIX]b[PREFIX]a'
    );
    expect(PLAIN_FORMAT.prompt('a', 'b')).toBe('a');
  });
});

describe('the completion request', () => {
  it('completes the rest of a line when the cursor’s line has text, a block on a blank line', () => {
    expect(completionMode('x = f(', 'a, b)\n')).toBe('line');
    expect(completionMode('x = f(', ')\n')).toBe('line');
    expect(completionMode('x = f(', '  \nprint(x)')).toBe('line');
    expect(completionMode('a = 1\n', ')')).toBe('line');
    expect(completionMode('for i in range(3):\n', '')).toBe('block');
    expect(completionMode('for i in range(3):\n    ', '\nprint(i)')).toBe(
      'block'
    );
    expect(completionMode('', '')).toBe('next-cell');
    expect(completionMode('\n  ', '\n')).toBe('next-cell');
  });

  it('stops a line at its newline and a block at a blank line, with at most four stops', () => {
    const line = buildCompletion(cursor({ after: 'x)\n' }), 'qwen2.5-coder', {
      maxTokens: 64
    });
    expect(line.mode).toBe('line');
    expect(line.request.stop).toContain('\n');
    expect(line.request.maxTokens).toBeLessThanOrEqual(32);
    const block = buildCompletion(
      cursor({ before: 'df = load()\n' }),
      'qwen2.5-coder',
      { maxTokens: 64 }
    );
    expect(block.request.stop).toContain('\n\n');
    expect(block.request.stop).toContain('<|endoftext|>');
    expect(block.request.maxTokens).toBe(64);
    for (const model of ['qwen2.5-coder', 'deepseek-coder', 'gpt-4o']) {
      expect(
        buildCompletion(cursor(), model, { maxTokens: 8 }).request.stop.length
      ).toBeLessThanOrEqual(4);
    }
  });

  it('gives the cells above as percent-format cells, the nearest outputs and the variables', () => {
    const built = buildCompletion(
      cursor({
        cellsAbove: [
          { kind: 'markdown', source: '# Sales\nBy region' },
          { kind: 'code', source: 'import pandas as pd', output: '' },
          {
            kind: 'code',
            source: "df = pd.read_csv('sales.csv')\ndf.head()",
            output: '   region  units\n0  north  3'
          }
        ],
        variables: ['df', 'pd']
      }),
      'qwen2.5-coder-0.5b',
      { maxTokens: 64 }
    );
    const prompt = built.request.prompt;
    expect(prompt.startsWith('<|fim_prefix|>')).toBe(true);
    expect(prompt).toContain(
      `${CELL_MARKER} [markdown]\n# # Sales\n# By region`
    );
    expect(prompt).toContain("df = pd.read_csv('sales.csv')");
    expect(prompt).toContain('# Out:\n#    region  units');
    expect(prompt).toContain('# Variables in the kernel: df, pd');
    // The cursor's own cell comes last, then the hole, then the text after.
    expect(prompt).toContain(
      `${CELL_MARKER}\ndf.groupby(<|fim_suffix|>\nprint(df)<|fim_middle|>`
    );
    expect(prompt.indexOf('import pandas')).toBeLessThan(
      prompt.indexOf('read_csv')
    );
  });

  it('keeps the nearest whole cells within the budget, and the end of a long cell', () => {
    const cellsAbove = Array.from({ length: 50 }, (_, i) => ({
      kind: 'code' as const,
      source: `step_${i} = ${'x'.repeat(80)}`
    }));
    const built = buildCompletion(cursor({ cellsAbove }), 'gpt-4o', {
      maxTokens: 16,
      beforeChars: 1000
    });
    const prompt = built.request.prompt;
    expect(prompt.length).toBeLessThanOrEqual(1000);
    expect(prompt).toContain('step_49');
    expect(prompt).not.toContain('step_10 ');
    // No cell is cut in the middle: each kept one starts with its marker.
    expect(prompt.startsWith(CELL_MARKER)).toBe(true);
    const long = buildCompletion(
      cursor({ before: 'y'.repeat(5000) + 'END' }),
      'gpt-4o',
      { maxTokens: 16, beforeChars: 1000 }
    );
    expect(long.request.prompt.endsWith('END')).toBe(true);
    expect(long.request.prompt.length).toBe(1000);
  });

  it('cuts the text after the cursor to its budget', () => {
    const built = buildCompletion(
      cursor({ after: 'z'.repeat(3000) }),
      'qwen2.5-coder',
      { maxTokens: 16, afterChars: 100 }
    );
    expect(built.request.prompt).toContain(
      `<|fim_suffix|>${'z'.repeat(100)}<|fim_middle|>`
    );
  });

  it('never cuts an emoji in half at either edge (the server refuses a lone surrogate)', () => {
    const emoji = '\u{1F600}'; // two UTF-16 units
    // The window's start falls between the emoji's two halves ("# %%\nx" and
    // its first half are the 7 units cut), and so does its end.
    const built = buildCompletion(
      cursor({
        before: 'x' + emoji + 'y'.repeat(996),
        after: 'z'.repeat(99) + emoji
      }),
      'qwen2.5-coder',
      { maxTokens: 16, beforeChars: 997, afterChars: 100 }
    );
    const prompt = built.request.prompt;
    const lone =
      /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
    expect(lone.test(prompt)).toBe(false);
    expect(prompt).toContain(`<|fim_prefix|>${'y'.repeat(996)}`);
    expect(prompt).toContain(`<|fim_suffix|>${'z'.repeat(99)}<|fim_middle|>`);
    // And a whole emoji at an edge stays.
    expect(wholeCharacters(emoji + 'a' + emoji)).toBe(emoji + 'a' + emoji);
  });
});
