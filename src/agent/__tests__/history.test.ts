import {
  elidedToolOutput,
  estimateTokens,
  fitHistory,
  messageTokens
} from '../context/history';
import { type ChatMessage } from '../types';

/** One tool round: the assistant's call and the tool's answer. */
function round(id: string, name: string, output: string): ChatMessage[] {
  return [
    {
      role: 'assistant',
      content: null,
      toolCalls: [{ id, name, arguments: '{}' }]
    },
    { role: 'tool', toolCallId: id, content: output }
  ];
}

const SYSTEM: ChatMessage = {
  role: 'system',
  content: 'You are helpful. '.repeat(20)
};
const USER: ChatMessage = {
  role: 'user',
  content: 'Load data.csv and plot it.'
};

function conversation(): ChatMessage[] {
  return [
    SYSTEM,
    USER,
    ...round('c1', 'read_notebook', 'cells:\n' + 'a'.repeat(4000)),
    ...round('c2', 'run_cell', 'cell_id: x finished OK.\n' + 'b'.repeat(4000)),
    ...round(
      'c3',
      'run_cell',
      'cell_id: y raised an error.\n' + 'c'.repeat(4000)
    ),
    { role: 'assistant', content: 'Done.' }
  ];
}

const total = (messages: ChatMessage[]) =>
  messages.reduce((sum, m) => sum + messageTokens(m), 0);

describe('fitHistory', () => {
  it('returns the very same messages when the budget is not exceeded', () => {
    const messages = conversation();
    const fitted = fitHistory(messages, total(messages));
    expect(fitted).toHaveLength(messages.length);
    fitted.forEach((m, i) => expect(m).toBe(messages[i]));
    expect(fitted).not.toBe(messages);
  });

  it('elides the oldest tool outputs first and keeps the latest intact', () => {
    const messages = conversation();
    const fitted = fitHistory(messages, total(messages) - 500);
    expect(fitted).toHaveLength(messages.length);
    expect(fitted[3]).toEqual({
      role: 'tool',
      toolCallId: 'c1',
      content: '[output of read_notebook elided to save context: cells:…]'
    });
    // One stub was enough: the later outputs are untouched.
    expect(fitted[5]).toBe(messages[5]);
    expect(fitted[7]).toBe(messages[7]);
    expect(fitted[0]).toBe(SYSTEM);
    expect(fitted[1]).toBe(USER);
    expect(total(fitted)).toBeLessThanOrEqual(total(messages) - 500);
  });

  it('elides the latest round only when the older ones are not enough', () => {
    const messages = conversation();
    const fitted = fitHistory(messages, total(messages) - 2500);
    expect(fitted.map(m => m.content && m.content.slice(0, 30))).toEqual([
      SYSTEM.content.slice(0, 30),
      USER.content.slice(0, 30),
      null,
      '[output of read_notebook elide',
      null,
      '[output of run_cell elided to ',
      null,
      '[output of run_cell elided to ',
      'Done.'
    ]);
    expect(fitted[7].content).toBe(
      '[output of run_cell elided to save context: cell_id: y raised an error.…]'
    );
  });

  it('keeps system, the last user message and the latest messages when nothing fits', () => {
    const long = 'word '.repeat(2000);
    const messages: ChatMessage[] = [
      SYSTEM,
      { role: 'user', content: 'first question' },
      { role: 'assistant', content: long },
      { role: 'user', content: 'second question' },
      { role: 'assistant', content: long },
      ...round('c9', 'run_cell', 'result: 42\n' + 'd'.repeat(1600)),
      { role: 'assistant', content: 'The answer is 42.' }
    ];
    const budget = messageTokens(SYSTEM) + 1000;
    const fitted = fitHistory(messages, budget);
    expect(total(fitted)).toBeLessThanOrEqual(budget);
    expect(fitted[0]).toBe(SYSTEM);
    expect(fitted[1]).toEqual({ role: 'user', content: 'second question' });
    // The tool result is kept whole again once the old text is gone, and
    // never without the call that asked for it.
    expect(fitted.slice(2)).toEqual(messages.slice(5));
  });

  it('falls back to system + last user + the latest round if even that is too big', () => {
    const messages: ChatMessage[] = [
      SYSTEM,
      USER,
      { role: 'assistant', content: 'x'.repeat(8000) },
      ...round('c1', 'run_cell', 'y'.repeat(8000))
    ];
    const fitted = fitHistory(messages, 10);
    expect(fitted[0]).toBe(SYSTEM);
    expect(fitted[1]).toBe(USER);
    expect(fitted[2]).toBe(messages[3]);
    expect(fitted[3]).toEqual({
      role: 'tool',
      toolCallId: 'c1',
      content: elidedToolOutput('run_cell', 'y'.repeat(8000))
    });
    expect(fitted).toHaveLength(4);
  });

  it('is deterministic and does not modify its input', () => {
    const messages = conversation();
    const copy = JSON.parse(JSON.stringify(messages)) as ChatMessage[];
    const a = fitHistory(messages, 1500);
    const b = fitHistory(messages, 1500);
    expect(a).toEqual(b);
    expect(messages).toEqual(copy);
  });

  it('uses the estimator it is given', () => {
    const messages = conversation();
    const perChar = (text: string) => text.length;
    expect(fitHistory(messages, 20_000)).toHaveLength(messages.length);
    const fitted = fitHistory(messages, 9000, perChar);
    expect(fitted[3].content).toMatch(/^\[output of read_notebook elided/);
    expect(estimateTokens('abcdefgh')).toBe(2);
  });

  it('names the tool of the nearest call when ids repeat across turns', () => {
    // Some servers (and scripted models) send call_0 every turn: the stub of
    // an old output must keep its own tool's name as the history grows, or
    // the request prefix changes on every step.
    const base: ChatMessage[] = [
      SYSTEM,
      USER,
      ...round('call_0', 'read_notebook', 'cells:\n' + 'a'.repeat(4000)),
      ...round('call_0', 'run_cell', 'ok\n' + 'b'.repeat(40))
    ];
    const longer = [...base, ...round('call_0', 'read_cell', 'x')];
    const stub = (messages: ChatMessage[]) =>
      fitHistory(messages, total(messages) - 500)[3].content;
    expect(stub(base)).toBe(
      elidedToolOutput('read_notebook', 'cells:\n' + 'a'.repeat(4000))
    );
    expect(stub(longer)).toBe(stub(base));
  });

  it('clips the stub to one short line', () => {
    expect(
      elidedToolOutput('run_cell', '\n\n' + 'z'.repeat(500) + '\nmore')
    ).toBe(`[output of run_cell elided to save context: ${'z'.repeat(100)}…]`);
  });
});
