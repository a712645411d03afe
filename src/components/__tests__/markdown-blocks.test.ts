import { markdownBlocks } from '../markdown-blocks';

describe('markdownBlocks', () => {
  it('splits at blank lines, keeping fenced code (with its blank lines) whole', () => {
    const text = [
      '# Title',
      '',
      'A paragraph',
      'on two lines.',
      '',
      '',
      '```python',
      'x = 1',
      '',
      'print(x)',
      '```',
      '',
      '- a',
      '- b'
    ].join('\n');
    expect(markdownBlocks(text)).toEqual([
      '# Title',
      'A paragraph\non two lines.',
      '```python\nx = 1\n\nprint(x)\n```',
      '- a\n- b'
    ]);
  });

  it('keeps an unterminated fence (still streaming) in the last block', () => {
    expect(markdownBlocks('Intro\n\n```\ncode\n\nmore')).toEqual([
      'Intro',
      '```\ncode\n\nmore'
    ]);
  });

  it('only the last block changes as text streams in', () => {
    const full = 'One.\n\nTwo words here.\n\nThree';
    const before = markdownBlocks(full.slice(0, 20));
    const after = markdownBlocks(full);
    expect(after.slice(0, before.length - 1)).toEqual(before.slice(0, -1));
  });
});
