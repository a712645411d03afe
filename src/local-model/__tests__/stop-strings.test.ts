import { StopStringCutter } from '../stop-strings';

/** Feed the texts decoded after each token; the pieces shown, and the rest. */
function run(stops: string[], steps: string[]) {
  const cutter = new StopStringCutter(stops);
  const shown = steps.map(text => cutter.update(text));
  return { shown, rest: cutter.finish(), stopped: cutter.stopped };
}

describe('StopStringCutter', () => {
  it('passes text through when no stop string is near', () => {
    expect(run(['\n\n'], ['a', 'a b', 'a b c'])).toEqual({
      shown: ['a', ' b', ' c'],
      rest: '',
      stopped: false
    });
  });

  it('cuts at a stop string split across tokens, and shows none of it', () => {
    expect(run(['\ndef '], ['x = 1', 'x = 1\nd', 'x = 1\ndef f'])).toEqual({
      shown: ['x = 1', '', ''],
      rest: '',
      stopped: true
    });
  });

  it('holds back a possible start of a stop string, and lets it go when it is not one', () => {
    expect(run(['\n\n'], ['a\n', 'a\nb'])).toEqual({
      shown: ['a', '\nb'],
      rest: '',
      stopped: false
    });
  });

  it('shows what it held back when the generation ends without the stop string', () => {
    expect(run(['\n\n'], ['a', 'a\n'])).toEqual({
      shown: ['a', ''],
      rest: '\n',
      stopped: false
    });
  });

  it('stops at the first of several stop strings', () => {
    expect(run(['c', 'b'], ['a', 'abc'])).toEqual({
      shown: ['a', ''],
      rest: '',
      stopped: true
    });
  });

  it('shows nothing more once stopped', () => {
    const cutter = new StopStringCutter(['END']);
    expect(cutter.update('okEND')).toBe('ok');
    expect(cutter.update('okEND more')).toBe('');
    expect(cutter.finish()).toBe('');
  });

  it('ignores empty stop strings', () => {
    expect(run([''], ['a', 'ab'])).toEqual({
      shown: ['a', 'b'],
      rest: '',
      stopped: false
    });
  });

  it('waits for the last bytes of a character decoded in part', () => {
    expect(run([], ['x', 'x\uFFFD', 'x\u00e9'])).toEqual({
      shown: ['x', '', '\u00e9'],
      rest: '',
      stopped: false
    });
  });
});
