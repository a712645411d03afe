import {
  applyCarriageReturns,
  formatError,
  formatOutput,
  formatOutputs,
  formatRunResult,
  stripAnsi,
  truncateMiddle
} from '../context/observations';
import { type CellOutput, type IRunResult } from '../ports';
import { withinBudget } from '../context/text';

describe('text', () => {
  it('reads texts within a budget: the last one cut, none after it', () => {
    expect(withinBudget(['abc', 'defg', 'hij'], 5)).toEqual(['abc', 'de']);
    expect(withinBudget(['abc', 'de'], 5)).toEqual(['abc', 'de']);
    expect(withinBudget(['abc'], 0)).toEqual([]);
  });

  it('keeps head and tail within the budget and says how much was elided', () => {
    const text = 'a'.repeat(500) + 'MIDDLE' + 'z'.repeat(500);
    const out = truncateMiddle(text, 100);
    expect(out.length).toBeLessThanOrEqual(100);
    const [head, tail] = out.split(/\n… \[\d+ characters elided\] …\n/);
    expect(head).toMatch(/^a+$/);
    expect(tail).toMatch(/^z+$/);
    expect(head.length).toBeGreaterThan(tail.length);
    const elided = Number(/\[(\d+) characters elided\]/.exec(out)![1]);
    expect(elided).toBe(text.length - head.length - tail.length);
    expect(out).not.toContain('MIDDLE');
    expect(truncateMiddle('short', 100)).toBe('short');
    expect(truncateMiddle('abc', 0)).toBe('');
  });

  it('cuts at line ends and counts the elided lines', () => {
    const text = Array.from({ length: 1000 }, (_, i) => `line ${i}`).join('\n');
    const out = truncateMiddle(text, 300);
    expect(out.length).toBeLessThanOrEqual(300);
    const lines = out.split('\n');
    const marker = lines.findIndex(l => l.startsWith('…'));
    // Every kept line is whole.
    for (const line of [
      ...lines.slice(0, marker),
      ...lines.slice(marker + 1)
    ]) {
      expect(line).toMatch(/^line \d+$/);
    }
    const kept = lines.length - 1;
    expect(lines[marker]).toMatch(
      new RegExp(`^… \\[${1000 - kept} lines, \\d+ characters elided\\] …$`)
    );
  });

  it('never splits a surrogate pair', () => {
    const out = truncateMiddle('😀'.repeat(200), 100);
    expect(out.length).toBeLessThanOrEqual(100);
    expect(out).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
    expect(out).not.toMatch(/(?<![\ud800-\udbff])[\udc00-\udfff]/);
  });

  it('strips ANSI colours, cursor moves and OSC hyperlinks', () => {
    expect(
      stripAnsi('\u001b[0;31mZeroDivisionError\u001b[0m: division by zero')
    ).toBe('ZeroDivisionError: division by zero');
    expect(stripAnsi('\u001b[38;5;241m=\u001b[39m\u001b[A\u001b[2K')).toBe('=');
    expect(stripAnsi('\u001b]8;;http://x\u0007link\u001b]8;;\u0007')).toBe(
      'link'
    );
  });

  it('collapses carriage-return rewrites to what the terminal shows', () => {
    expect(applyCarriageReturns('  0%|\r 50%|##\r100%|####\n')).toBe(
      '100%|####\n'
    );
    // A shorter rewrite overwrites only its own columns.
    expect(applyCarriageReturns('loading 100\rdone')).toBe('doneing 100');
    expect(applyCarriageReturns('a\r\nb\r\r\nc')).toBe('a\nb\nc');
    expect(applyCarriageReturns('abc\b\bX')).toBe('aXc');
    expect(applyCarriageReturns('step 1\r')).toBe('step 1');
  });
});

describe('formatOutput', () => {
  it('labels stderr and collapses a progress bar split over many writes', () => {
    const outputs: CellOutput[] = [
      { type: 'stream', name: 'stdout', text: 'start\n' },
      ...[0, 50, 100].map((p): CellOutput => ({
        type: 'stream',
        name: 'stderr',
        text: `\r\u001b[32m${String(p).padStart(3)}%\u001b[0m`
      })),
      { type: 'stream', name: 'stderr', text: '\n' },
      { type: 'stream', name: 'stdout', text: 'end\n' }
    ];
    expect(formatOutputs(outputs)).toBe('start\n[stderr]\n100%\n[stdout]\nend');
  });

  it('names ipykernel’s cell files without the kernel’s process id (a warning, a plain traceback)', () => {
    // As ipykernel 6 writes a pandas warning: the pid changes with each kernel, the code's hash does not.
    const warning = (pid: number): CellOutput => ({
      type: 'stream',
      name: 'stderr',
      text:
        `/tmp/ipykernel_${pid}/2823439914.py:3: FutureWarning: The default of observed=False is deprecated\n` +
        "  df.groupby('region').sum()\n"
    });
    const read = formatOutputs([warning(16106)]);
    expect(read).toBe(
      '[stderr]\n/tmp/ipykernel/2823439914.py:3: FutureWarning: The default of observed=False is deprecated\n' +
        "  df.groupby('region').sum()"
    );
    expect(formatOutputs([warning(912)])).toBe(read);
    const error: CellOutput = {
      type: 'error',
      ename: 'KeyError',
      evalue: "'k'",
      traceback: [
        'Traceback (most recent call last):\n' +
          '  File "C:\\Users\\me\\AppData\\Local\\Temp\\ipykernel_4242\\-123.py", line 3, in <module>\n' +
          "    d['k']\n" +
          "KeyError: 'k'\n"
      ]
    };
    expect(formatOutput(error)).toContain(
      'File "C:\\Users\\me\\AppData\\Local\\Temp\\ipykernel\\-123.py", line 3'
    );
    // A user's own file of that name is left as it is.
    expect(
      formatOutputs([
        { type: 'stream', name: 'stdout', text: 'see ipykernel_4242.log\n' }
      ])
    ).toBe('see ipykernel_4242.log');
  });

  it('says there is no output when nothing visible was printed', () => {
    expect(formatOutputs([])).toBe('(no output)');
    expect(
      formatOutputs([{ type: 'stream', name: 'stderr', text: '\r\n' }])
    ).toBe('(no output)');
  });

  it('keeps an error in view next to a huge stream', () => {
    const outputs: CellOutput[] = [
      { type: 'stream', name: 'stdout', text: 'x'.repeat(1_000_000) },
      {
        type: 'error',
        ename: 'ValueError',
        evalue: 'bad input',
        traceback: ['Cell In[1], line 2\n----> 2 raise ValueError("bad input")']
      }
    ];
    const text = formatOutputs(outputs, 2000);
    expect(text.length).toBeLessThanOrEqual(2000);
    expect(text).toContain('ValueError: bad input');
    expect(text).toContain('----> 2 raise ValueError');
    expect(text).toMatch(/\[\d+ characters elided\]/);
  });

  it('keeps the first and last of very many outputs and counts the rest', () => {
    const outputs = Array.from({ length: 500 }, (_, i): CellOutput => ({
      type: 'display_data',
      data: { 'text/plain': `item ${i}` }
    }));
    const text = formatOutputs(outputs, 1200);
    expect(text.length).toBeLessThanOrEqual(1200);
    expect(text).toContain('item 0\n');
    expect(text).toContain('item 499');
    expect(text).toMatch(/\[491 more outputs omitted\]/);
  });
});

describe('formatError', () => {
  it('puts the exception first and strips ANSI', () => {
    const error = formatOutput({
      type: 'error',
      ename: 'ZeroDivisionError',
      evalue: 'division by zero',
      traceback: ['\u001b[0;31m----> 1\u001b[0m 1/0']
    });
    expect(error).toBe('ZeroDivisionError: division by zero\n----> 1 1/0');
  });

  it('trims a plain CPython traceback to the ipykernel frames and the raise', () => {
    const traceback = [
      'Traceback (most recent call last):\n' +
        '  File "/tmp/ipykernel_4242/123.py", line 3, in <module>\n' +
        '    run()\n' +
        '  File "/tmp/ipykernel_4242/99.py", line 2, in run\n' +
        '    lib.go()\n' +
        '  File "/usr/lib/python3/site-packages/lib/a.py", line 10, in go\n' +
        '    b()\n' +
        '  File "/usr/lib/python3/site-packages/lib/b.py", line 20, in b\n' +
        '    c()\n' +
        '  File "/usr/lib/python3/site-packages/lib/c.py", line 30, in c\n' +
        '    raise KeyError("k")\n' +
        "KeyError: 'k'\n"
    ];
    const text = formatError({ ename: 'KeyError', evalue: "'k'", traceback });
    expect(text).toBe(
      [
        "KeyError: 'k'",
        'Traceback (most recent call last; 2 library frames omitted):',
        '  File "/tmp/ipykernel_4242/123.py", line 3, in <module>',
        '    run()',
        '  File "/tmp/ipykernel_4242/99.py", line 2, in run',
        '    lib.go()',
        '[2 library frames omitted]',
        '  File "/usr/lib/python3/site-packages/lib/c.py", line 30, in c',
        '    raise KeyError("k")'
      ].join('\n')
    );
  });

  it('keeps chained exceptions and counts hidden frames (real IPython text)', () => {
    // Recorded from ipykernel 7 / IPython 9, colours included.
    const traceback = [
      '\u001b[0;31m---------------------------------------------------------------------------\u001b[0m',
      '\u001b[0;31mKeyError\u001b[0m                                  Traceback (most recent call last)',
      "Cell \u001b[0;32mIn[2], line 2\u001b[0m\n\u001b[0;32m----> 2\u001b[0m   {}['a']\n",
      "\u001b[0;31mKeyError\u001b[0m: 'a'",
      '\nThe above exception was the direct cause of the following exception:\n',
      '\u001b[0;31mValueError\u001b[0m                                Traceback (most recent call last)',
      "Cell \u001b[0;32mIn[2], line 4\u001b[0m\n\u001b[0;32m----> 4\u001b[0m   raise ValueError('bad') from e\n",
      '    [... skipping hidden 1 frame]\n',
      'File \u001b[0;32m~/lib/x.py:9\u001b[0m, in \u001b[0;36mf\u001b[0;34m()\u001b[0m\n\u001b[1;32m      8\u001b[0m a\n\u001b[0;32m----> 9\u001b[0m b\n',
      '\u001b[0;31mValueError\u001b[0m: bad'
    ];
    const text = formatError({ ename: 'ValueError', evalue: 'bad', traceback });
    expect(text).toBe(
      [
        'ValueError: bad',
        'Traceback (most recent call last; 1 library frame omitted):',
        'Cell In[2], line 2',
        "----> 2   {}['a']",
        "KeyError: 'a'",
        'The above exception was the direct cause of the following exception:',
        'Cell In[2], line 4',
        "----> 4   raise ValueError('bad') from e",
        '[1 library frame omitted]',
        'File ~/lib/x.py:9, in f()',
        '----> 9 b'
      ].join('\n')
    );
  });

  it('shows a syntax error with its caret and no duplicate message', () => {
    const traceback = [
      '\u001b[0;36m  Cell \u001b[0;32mIn[1], line 1\u001b[0;36m\u001b[0m\n\u001b[0;31m    oops(\u001b[0m\n\u001b[0m         ^\u001b[0m\n\u001b[0;31mSyntaxError\u001b[0m\u001b[0;31m:\u001b[0m incomplete input\n'
    ];
    const text = formatError({
      ename: 'SyntaxError',
      evalue: 'incomplete input (1, 1)',
      traceback
    });
    expect(text).toBe(
      'SyntaxError: incomplete input (1, 1)\nTraceback (most recent call last):\n' +
        '  Cell In[1], line 1\n    oops(\n         ^'
    );
  });

  it('keeps a huge exception message within budget', () => {
    const text = formatError(
      { ename: 'KeyError', evalue: 'k'.repeat(50_000), traceback: [] },
      1000
    );
    expect(text.length).toBeLessThanOrEqual(1000);
    expect(text.startsWith('KeyError: kkk')).toBe(true);
  });
});

describe('formatRunResult', () => {
  const base: IRunResult = {
    cellId: 'abc',
    status: 'ok',
    executionCount: 7,
    elapsedMs: 1234,
    outputs: [{ type: 'stream', name: 'stdout', text: '42\n' }]
  };

  it('states a clean finish with the execution count, and the time from 10 s on', () => {
    expect(formatRunResult(base)).toBe(
      'cell_id: abc finished OK (execution count 7).\nOutput:\n42'
    );
    expect(formatRunResult({ ...base, elapsedMs: 12_400 })).toBe(
      'cell_id: abc finished OK (execution count 7, took 12 s).\nOutput:\n42'
    );
    expect(
      formatRunResult({ ...base, executionCount: null, elapsedMs: undefined })
    ).toBe('cell_id: abc finished OK.\nOutput:\n42');
  });

  it('reads the same for two short runs whose times differ (a greedy model’s next reply depends on every byte)', () => {
    const quick = formatRunResult({ ...base, elapsedMs: 812 });
    expect(formatRunResult({ ...base, elapsedMs: 9_300 })).toBe(quick);
    expect(formatRunResult({ ...base, status: 'error', elapsedMs: 812 })).toBe(
      formatRunResult({ ...base, status: 'error', elapsedMs: 1_304 })
    );
  });

  it('states an error with the execution count, and the time from 10 s on', () => {
    expect(formatRunResult({ ...base, status: 'error' })).toMatch(
      /^cell_id: abc raised an error \(execution count 7\)\.\nOutput:/
    );
    expect(
      formatRunResult({ ...base, status: 'error', elapsedMs: 61_000 })
    ).toMatch(
      /^cell_id: abc raised an error \(execution count 7, after 61 s\)\./
    );
  });

  it.each([
    [
      'running',
      /still running after 1\.2 s; the output below is partial\. Call `wait` .* `interrupt_kernel`.*\nOutput so far:\n42$/
    ],
    [
      'aborted',
      /^cell_id: abc was interrupted by the user after 1\.2 s.*\nOutput so far:/
    ],
    [
      'timeout',
      /^cell_id: abc hit the hard time limit after 1\.2 s and the kernel was interrupted/
    ],
    [
      'kernel-died',
      /^The kernel died while cell_id: abc was running \(after 1\.2 s\)\. All variables.*lost.*restarted or must be restarted/
    ]
  ] as const)('states status %s', (status, pattern) => {
    expect(formatRunResult({ ...base, status })).toMatch(pattern);
  });

  it('says input() is not available and names scratch code', () => {
    const text = formatRunResult({
      ...base,
      cellId: null,
      status: 'error',
      elapsedMs: 125_000,
      stdinRefused: true
    });
    expect(text).toMatch(
      /^The scratch code raised an error \(execution count 7, after 2 min 5 s\)\./
    );
    expect(text).toContain('input(), which is not available to the agent');
    expect(text).toContain('put the values in the code instead');
  });
});
