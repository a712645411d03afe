import {
  formatOutput,
  formatOutputs,
  formatRunResult,
  stripAnsi,
  truncateMiddle
} from '../context/observations';

describe('observations', () => {
  it('keeps head and tail of long text and says how much was elided', () => {
    const text = 'a'.repeat(500) + 'MIDDLE' + 'z'.repeat(500);
    const out = truncateMiddle(text, 100);
    expect(out.startsWith('a'.repeat(60))).toBe(true);
    expect(out.endsWith('z'.repeat(40))).toBe(true);
    expect(out).toContain('[906 characters elided]');
    expect(out).not.toContain('MIDDLE');
    expect(truncateMiddle('short', 100)).toBe('short');
  });

  it('strips ANSI colours from tracebacks', () => {
    expect(
      stripAnsi('\u001b[0;31mZeroDivisionError\u001b[0m: division by zero')
    ).toBe('ZeroDivisionError: division by zero');
    const error = formatOutput({
      type: 'error',
      ename: 'ZeroDivisionError',
      evalue: 'division by zero',
      traceback: ['\u001b[0;31m----> 1\u001b[0m 1/0']
    });
    expect(error).toBe('ZeroDivisionError: division by zero\n----> 1 1/0');
  });

  it('describes images instead of pasting base64', () => {
    const png = 'iVBORw0KGgo'.repeat(1000);
    const text = formatOutput({
      type: 'display_data',
      data: { 'image/png': png, 'text/plain': '<Figure size 640x480>' }
    });
    expect(text).toContain('<Figure size 640x480>');
    expect(text).toMatch(/\[image\/png image, \d+ KB\]/);
    expect(text).not.toContain('iVBORw0KGgo');
  });

  it('formats a run result with the cell id and execution count', () => {
    const text = formatRunResult({
      cellId: 'abc',
      status: 'ok',
      executionCount: 7,
      outputs: [{ type: 'stream', name: 'stdout', text: '42\n' }]
    });
    expect(text).toBe(
      'cell_id: abc ran (execution count 7) without error.\nOutput:\n42\n'
    );
    expect(formatOutputs([])).toBe('(no output)');
  });
});
