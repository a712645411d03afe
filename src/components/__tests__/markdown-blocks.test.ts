import { BlockSplitter, markdownBlocks } from '../markdown/markdown-blocks';

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

describe('BlockSplitter', () => {
  /** A small deterministic generator (mulberry32). */
  function random(seed: number): () => number {
    return () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }
  const PIECES = [
    'word ',
    'x',
    '\n',
    '\n\n',
    '  \n',
    '```',
    '~~~',
    '````',
    '- item',
    ' ',
    '\n```\n'
  ];

  it('gives what markdownBlocks gives for every prefix of a text streamed in random chunks', () => {
    for (let seed = 1; seed <= 100; seed++) {
      const next = random(seed);
      let text = '';
      const splitter = new BlockSplitter();
      for (let step = 0; step < 60; step++) {
        text += PIECES[Math.floor(next() * PIECES.length)];
        expect(splitter.split(text)).toEqual(markdownBlocks(text));
      }
    }
  });

  it('keeps the finished blocks as the same strings, and starts over when the text is replaced', () => {
    const splitter = new BlockSplitter();
    const first = splitter.split('One.\n\nTwo');
    const second = splitter.split('One.\n\nTwo and three.\n\nFour');
    expect(second[0]).toBe(first[0]);
    expect(second).toEqual(['One.', 'Two and three.', 'Four']);
    expect(splitter.split('Other\n\ntext')).toEqual(['Other', 'text']);
    expect(splitter.split('')).toEqual([]);
  });

  it('a last line still growing can still join its block ("A\\n" then "A\\nB")', () => {
    const splitter = new BlockSplitter();
    expect(splitter.split('A\n')).toEqual(['A']);
    expect(splitter.split('A\nB')).toEqual(['A\nB']);
    expect(splitter.split('A\nB\n  ')).toEqual(['A\nB']);
    expect(splitter.split('A\nB\n  C')).toEqual(['A\nB\n  C']);
  });
});
