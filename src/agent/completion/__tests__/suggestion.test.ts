import { cleanSuggestion } from '../suggestion';

describe('cleaning a suggestion', () => {
  it('cuts a block where the model starts to rewrite the text after the cursor', () => {
    const raw =
      "'region')['revenue'].sum()\nprint(rev)\n# total revenue per month\nrev = df.groupby('month')";
    expect(cleanSuggestion(raw, 'block', '\nprint(rev)\n')).toBe(
      "'region')['revenue'].sum()"
    );
  });

  it('keeps a whole block when nothing after the cursor repeats', () => {
    expect(
      cleanSuggestion('\n    total += x\nprint(total)\n\n', 'block', '')
    ).toBe('\n    total += x\nprint(total)');
  });

  it('limits a block to its lines', () => {
    const raw = Array.from({ length: 30 }, (_, i) => `x${i} = ${i}`).join('\n');
    expect(cleanSuggestion(raw, 'block', '', 5).split('\n')).toHaveLength(5);
  });

  it('drops special tokens a server left in, and the start of a next cell', () => {
    expect(cleanSuggestion('a + b<|endoftext|>junk', 'block', '')).toBe(
      'a + b'
    );
    expect(cleanSuggestion('a + b<|fim_pad|>', 'block', '')).toBe('a + b');
    expect(cleanSuggestion('a + b\n# %%\nmore()', 'block', '')).toBe('a + b');
    // Measured: the 0.5B continues a next cell with an output in the prompt's own form.
    expect(
      cleanSuggestion("# %%\ndf['units'].max()\n# Out:\n# 3", 'next-cell', '')
    ).toBe("df['units'].max()");
  });

  it('completes only the line in line mode, without what already closes it', () => {
    expect(cleanSuggestion("'region', 'units')\nnext()", 'line', ')\n')).toBe(
      "'region', 'units'"
    );
    expect(cleanSuggestion('x, y', 'line', 'z)\n')).toBe('x, y');
    // Only what is already there: nothing to suggest.
    expect(cleanSuggestion('z', 'line', 'z)\n')).toBe('');
  });

  it('a next cell loses its leading cell marker; blank answers are no suggestion', () => {
    expect(cleanSuggestion('# %%\ndf.describe()', 'next-cell', '')).toBe(
      'df.describe()'
    );
    expect(cleanSuggestion('\n\n  ', 'block', '')).toBe('');
    expect(cleanSuggestion('', 'line', 'x')).toBe('');
  });
});
