/**
 * The engine's iopub → outputs rules, message by message: stream merging
 * with `\r` and `\b` as JupyterLab's output area applies them,
 * clear_output(wait), update_display_data, and the cap on a flood.
 */
import { KernelMessage } from '@jupyterlab/services';
import type { CellOutput } from '../../agent/ports';
import { CutStreamWriter } from '../cut-stream-writer';
import { OutputAccumulator } from '../output-accumulator';
import {
  CappedStream,
  MAX_STREAM_CHARS,
  STREAM_TAIL_CHARS
} from '../stream-cap';
import { StreamOutput } from '../stream-output';

function iopub(
  msgType: string,
  content: Record<string, unknown>
): KernelMessage.IIOPubMessage {
  const create = KernelMessage.createMessage as (options: {
    channel: 'iopub';
    session: string;
    msgType: string;
    content: Record<string, unknown>;
  }) => KernelMessage.IIOPubMessage;
  return create({
    channel: 'iopub',
    session: 'kernel-session',
    msgType,
    content
  });
}

const stdout = (text: string) => iopub('stream', { name: 'stdout', text });

function streamed(...chunks: string[]): string {
  const stream = new StreamOutput();
  chunks.forEach(chunk => stream.append(chunk));
  return stream.text;
}

describe('StreamOutput', () => {
  it('applies \\r as JupyterLab does: back to the line start, then overwrite', () => {
    expect(streamed('abc\rX')).toBe('Xbc');
    expect(streamed('progress 10%\rprogress 20%\r', 'progress 30%\n')).toBe(
      'progress 30%\n'
    );
    // \r\n keeps the line; text after it starts a new one.
    expect(streamed('one\r\ntwo\n')).toBe('one\ntwo\n');
    // A \r in an earlier chunk still applies to the same line.
    expect(streamed('10%', '\r', '55%')).toBe('55%');
    // Lines already ended stay as they were.
    expect(streamed('done\n', 'a\rb')).toBe('done\nb');
  });

  it('applies \\b as JupyterLab does, never past the line start', () => {
    expect(streamed('ab\bc\n')).toBe('ac\n');
    expect(streamed('line\n\bx')).toBe('line\nx');
    // Mid-line after \r: JupyterLab drops the character before the cursor and the one under it.
    expect(streamed('abcd\rxy\bz')).toBe('xz');
  });
});

describe('OutputAccumulator', () => {
  it('merges consecutive streams of the same name, and only those', () => {
    const acc = new OutputAccumulator();
    acc.add(stdout('a'));
    acc.add(stdout('b\n'));
    acc.add(iopub('stream', { name: 'stderr', text: 'warn\n' }));
    acc.add(stdout('c'));
    expect(acc.outputs).toEqual([
      { type: 'stream', name: 'stdout', text: 'ab\n' },
      { type: 'stream', name: 'stderr', text: 'warn\n' },
      { type: 'stream', name: 'stdout', text: 'c' }
    ]);
  });

  it('clear_output(wait=True) clears just before the next output', () => {
    const acc = new OutputAccumulator();
    acc.add(stdout('frame 1\n'));
    expect(acc.add(iopub('clear_output', { wait: true }))).toBe(false);
    expect(acc.outputs).toHaveLength(1);
    acc.add(stdout('frame 2\n'));
    expect(acc.outputs).toEqual([
      { type: 'stream', name: 'stdout', text: 'frame 2\n' }
    ]);
    expect(acc.add(iopub('clear_output', { wait: false }))).toBe(true);
    expect(acc.outputs).toEqual([]);
  });

  it('update_display_data replaces the displays with that id', () => {
    const acc = new OutputAccumulator();
    const display = (text: string, id: string, type = 'display_data') =>
      iopub(type, {
        data: { 'text/plain': text },
        metadata: {},
        transient: { display_id: id }
      });
    acc.add(display('0%', 'bar'));
    acc.add(display('other', 'x'));
    const before = acc.outputs[0];
    expect(acc.add(display('100%', 'bar', 'update_display_data'))).toBe(true);
    expect(
      acc.outputs.map(o => o.type !== 'stream' && o.type !== 'error' && o.data)
    ).toEqual([{ 'text/plain': '100%' }, { 'text/plain': 'other' }]);
    // Snapshots handed out earlier do not change.
    expect(before).toMatchObject({ data: { 'text/plain': '0%' } });
    expect(acc.add(display('?', 'unknown', 'update_display_data'))).toBe(false);
  });

  it('caps a flooding stream and says which output was cut', () => {
    const acc = new OutputAccumulator();
    const line = 'y'.repeat(1023) + '\n';
    acc.add(stdout('FIRST\n'));
    expect(acc.cutStream).toBeNull();
    for (let i = 0; i < 3000; i++) {
      acc.add(stdout(line));
    }
    acc.add(stdout('END\n'));
    const cut = acc.cutStream;
    expect(cut).toBe(acc.outputs[0]);
    const text = cut?.type === 'stream' ? cut.text : '';
    expect(text.startsWith('FIRST\n')).toBe(true);
    expect(text.endsWith('END\n')).toBe(true);
    expect(text).toMatch(/characters of output dropped/);
    expect(text.length).toBeLessThan(MAX_STREAM_CHARS + 2 * STREAM_TAIL_CHARS);
    // Another output ends the flood: nothing is cut any more.
    acc.add(iopub('error', { ename: 'E', evalue: '', traceback: [] }));
    expect(acc.cutStream).toBeNull();
  });

  it('takes the execution count from execute_input', () => {
    const acc = new OutputAccumulator();
    expect(
      acc.add(iopub('execute_input', { code: '1', execution_count: 7 }))
    ).toBe(false);
    expect(acc.executionCount).toBe(7);
  });
});

describe('CutStreamWriter', () => {
  it('keeps a flood away from a live output area, and writes its capped text before anything else passes', () => {
    const acc = new OutputAccumulator();
    const written: CellOutput[] = [];
    const writer = new CutStreamWriter(output => written.push(output));
    const take = (msg: KernelMessage.IIOPubMessage) => {
      acc.add(msg);
      return writer.pass(msg, acc);
    };
    expect(take(stdout('small\n'))).toBe(true);
    // One message past the cap: it goes through (the area needs the output to replace).
    expect(take(stdout('z'.repeat(3_000_000)))).toBe(false);
    expect(take(stdout('tail\n'))).toBe(false);
    expect(written).toEqual([]);
    const other = iopub('error', { ename: 'E', evalue: '', traceback: [] });
    expect(take(other)).toBe(true);
    expect(written).toHaveLength(1);
    const text = written[0].type === 'stream' ? written[0].text : '';
    expect(text.startsWith('small\n')).toBe(true);
    expect(text.endsWith('tail\n')).toBe(true);
    expect(text.length).toBeLessThan(MAX_STREAM_CHARS + 2 * STREAM_TAIL_CHARS);
  });

  it('lets the first message of a new output through even when it alone is past the cap', () => {
    const acc = new OutputAccumulator();
    const writer = new CutStreamWriter(() => undefined);
    const big = stdout('z'.repeat(3_000_000));
    acc.add(big);
    expect(writer.pass(big, acc)).toBe(true);
    writer.flush();
  });
});

describe('CappedStream', () => {
  it('keeps short streams whole', () => {
    const stream = new CappedStream('a');
    stream.append('b\n');
    expect(stream.text).toBe('ab\n');
  });

  it('keeps the head and the tail of a flood, and counts what it dropped', () => {
    const stream = new CappedStream();
    const line = 'x'.repeat(1023) + '\n';
    for (let i = 0; i < 10_000; i++) {
      stream.append(i === 0 ? 'FIRST' + line : line);
    }
    stream.append('LAST\n');
    const text = stream.text;
    expect(text.startsWith('FIRST')).toBe(true);
    expect(text.endsWith('LAST\n')).toBe(true);
    expect(text.length).toBeLessThan(MAX_STREAM_CHARS + 2 * STREAM_TAIL_CHARS);
    const marker = /\n… \[(\d+) characters of output dropped[^\n]*\n/.exec(
      text
    )!;
    const total = 'FIRST'.length + 10_000 * line.length + 'LAST\n'.length;
    // Nothing is lost silently: what is kept plus what was dropped is all of it.
    expect(text.length - marker[0].length + Number(marker[1])).toBe(total);
  });
});
