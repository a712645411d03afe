import { parsePythonicCalls } from '../pythonic-calls';

describe('parsePythonicCalls', () => {
  it('parses keyword arguments with Python literals', () => {
    expect(
      parsePythonicCalls(
        `[f(a=1, b=-2.5e3, c='x\\'y', d="""multi\nline""", e=True, f=None, g=(1, 2), h={'k': [False]})]`
      )
    ).toEqual([
      {
        name: 'f',
        arguments: {
          a: 1,
          b: -2500,
          c: "x'y",
          d: 'multi\nline',
          e: true,
          f: null,
          g: [1, 2],
          h: { k: [false] }
        }
      }
    ]);
  });

  it('parses several calls, a bare call and no arguments', () => {
    expect(parsePythonicCalls('[a(), b(x=1,)]')).toEqual([
      { name: 'a', arguments: {} },
      { name: 'b', arguments: { x: 1 } }
    ]);
    expect(parsePythonicCalls(' read_notebook() ')).toEqual([
      { name: 'read_notebook', arguments: {} }
    ]);
  });

  it.each([
    ['positional arguments', '[f(1)]'],
    ['an expression', '[f(a=1+2)]'],
    ['a name that is not a literal', '[f(a=df)]'],
    ['an unclosed list', '[f(a=1)'],
    ['trailing text', '[f(a=1)] and more'],
    ['plain prose', 'I will call the tool'],
    ['an empty list', '[]']
  ])('rejects %s', (_, text) => {
    expect(parsePythonicCalls(text)).toBeNull();
  });
});
