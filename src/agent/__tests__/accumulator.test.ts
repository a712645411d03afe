import { TurnAccumulator } from '../model/accumulator';
import type { IChatChunk } from '../model/types';

function delta(
  d: Record<string, unknown>,
  finish: string | null = null
): IChatChunk {
  return { choices: [{ index: 0, delta: d, finish_reason: finish }] };
}

describe('TurnAccumulator', () => {
  it('joins streamed text and reports each added piece', () => {
    const acc = new TurnAccumulator();
    expect(acc.add(delta({ role: 'assistant', content: '' }))).toBe('');
    expect(acc.add(delta({ content: 'The mean ' }))).toBe('The mean ');
    expect(acc.add(delta({ content: 'is 5.8' }))).toBe('is 5.8');
    acc.add(delta({}, 'stop'));
    expect(acc.result()).toEqual({
      text: 'The mean is 5.8',
      toolCalls: [],
      finishReason: 'stop',
      usage: undefined
    });
  });

  it('assembles tool calls whose arguments are split across chunks, in index order', () => {
    const acc = new TurnAccumulator();
    acc.add(
      delta({
        tool_calls: [
          {
            index: 1,
            id: 'b',
            type: 'function',
            function: { name: 'run_cell', arguments: '' }
          }
        ]
      })
    );
    acc.add(
      delta({
        tool_calls: [
          {
            index: 0,
            id: 'a',
            type: 'function',
            function: { name: 'insert_cell', arguments: '{"sou' }
          }
        ]
      })
    );
    acc.add(
      delta({
        tool_calls: [{ index: 1, function: { arguments: '{"cell_id":' } }]
      })
    );
    acc.add(
      delta({
        tool_calls: [{ index: 0, function: { arguments: 'rce": "1+1"}' } }]
      })
    );
    acc.add(
      delta({ tool_calls: [{ index: 1, function: { arguments: ' "x"}' } }] })
    );
    acc.add(delta({}, 'tool_calls'));
    const { toolCalls, finishReason } = acc.result();
    expect(finishReason).toBe('tool_calls');
    expect(toolCalls).toEqual([
      { id: 'a', name: 'insert_cell', arguments: '{"source": "1+1"}' },
      { id: 'b', name: 'run_cell', arguments: '{"cell_id": "x"}' }
    ]);
    expect(JSON.parse(toolCalls[0].arguments)).toEqual({ source: '1+1' });
  });

  it('synthesizes ids when a server omits them and tolerates chunks without choices', () => {
    const acc = new TurnAccumulator();
    acc.add({ choices: [] });
    acc.add(
      delta({
        tool_calls: [
          { index: 0, function: { name: 'read_notebook', arguments: '{}' } }
        ]
      })
    );
    acc.add({
      choices: [],
      usage: { prompt_tokens: 12, completion_tokens: 4 }
    });
    const result = acc.result();
    expect(result.toolCalls).toHaveLength(1);
    expect(result.toolCalls[0].id).toMatch(/^call_0_/);
    expect(result.finishReason).toBe('tool_calls');
    expect(result.usage).toEqual({ promptTokens: 12, completionTokens: 4 });
  });

  it('maps unknown finish reasons to "unknown"', () => {
    const acc = new TurnAccumulator();
    acc.add(delta({ content: 'x' }, 'eos_token'));
    expect(acc.result().finishReason).toBe('unknown');
  });

  it('keeps one call when a server sends a fresh id with every fragment', () => {
    const acc = new TurnAccumulator();
    for (const [id, args] of [
      ['r1', '{"source":'],
      ['r2', ' "1+1"'],
      ['r3', '}']
    ]) {
      acc.add(
        delta({
          tool_calls: [
            { index: 0, id, function: { name: 'insert_cell', arguments: args } }
          ]
        })
      );
    }
    expect(acc.result().toolCalls).toEqual([
      { id: 'r1', name: 'insert_cell', arguments: '{"source": "1+1"}' }
    ]);
  });

  it('keeps one call when fragments without index repeat the name', () => {
    const acc = new TurnAccumulator();
    for (const args of ['{"cell_id":', ' "c1"}']) {
      acc.add(
        delta({
          tool_calls: [{ function: { name: 'run_cell', arguments: args } }]
        })
      );
    }
    acc.add(
      delta({
        tool_calls: [
          { function: { name: 'run_cell', arguments: '{"cell_id": "c2"}' } }
        ]
      })
    );
    expect(acc.result().toolCalls.map(c => c.arguments)).toEqual([
      '{"cell_id": "c1"}',
      '{"cell_id": "c2"}'
    ]);
  });

  it('takes one reasoning field per delta when a server fills both', () => {
    const acc = new TurnAccumulator();
    acc.add(delta({ reasoning_content: 'Think.', reasoning: 'Think.' }));
    acc.add(delta({ reasoning: ' More.' }));
    acc.add(delta({ content: 'Answer.' }, 'stop'));
    expect(acc.result()).toMatchObject({
      text: 'Answer.',
      reasoning: 'Think. More.'
    });
  });

  it('stringifies object arguments of a legacy function_call and ignores it next to tool_calls', () => {
    const legacy = new TurnAccumulator();
    legacy.add(
      delta(
        { function_call: { name: 'read_notebook', arguments: {} } },
        'function_call'
      )
    );
    expect(legacy.result()).toMatchObject({
      toolCalls: [{ name: 'read_notebook', arguments: '{}' }],
      finishReason: 'tool_calls'
    });
    const both = new TurnAccumulator();
    both.add(
      delta({
        function_call: { name: 'old', arguments: '{}' },
        tool_calls: [
          { index: 0, id: 'n', function: { name: 'new', arguments: '{}' } }
        ]
      })
    );
    expect(both.result().toolCalls).toEqual([
      { id: 'n', name: 'new', arguments: '{}' }
    ]);
  });

  it('joins the first choice a stream names, and leaves the others (the proxy looks across events per choice)', () => {
    const acc = new TurnAccumulator();
    const choice = (
      index: number | undefined,
      d: Record<string, unknown>,
      finish: string | null = null
    ) => ({
      ...(index === undefined ? {} : { index }),
      delta: d,
      finish_reason: finish
    });
    // The start of a key in choice 0, finishing; the rest in choice 1.
    acc.add({ choices: [choice(0, { content: 'x sk-proj-A' }, 'stop')] });
    acc.add({
      choices: [
        choice(1, { content: 'bC123 y' }),
        choice(1, {
          tool_calls: [{ index: 0, function: { name: 'f', arguments: 'bC' } }]
        })
      ]
    });
    // Without an index, a choice is its place in the chunk: place 0 is choice 0.
    acc.add({ choices: [choice(undefined, { content: '!' })] });
    expect(acc.result()).toMatchObject({ text: 'x sk-proj-A!', toolCalls: [] });
    // A stream that names choice 1 first follows choice 1.
    const second = new TurnAccumulator();
    second.add({ choices: [choice(1, { content: 'one' })] });
    second.add({ choices: [choice(0, { content: 'zero' })] });
    expect(second.result().text).toBe('one');
  });

  // The server's proxy takes a key sent in pieces out of a stream by joining
  // the string values of each field; a piece of another type must not join.
  describe('joins only the strings the protocol sends (the proxy joins those)', () => {
    const KEY = 'sk-proj-AbC123xyz-0123456789ABCDEF';
    const HEX = '4f9a1c0e7b2d4a6f8e3c1b0a9d7e5f21';

    it('ignores text and thinking that are not strings', () => {
      const acc = new TurnAccumulator();
      acc.add(delta({ content: 'x sk-proj-AbC1' }));
      expect(acc.add(delta({ content: ['23xyz-0123456789ABCDEF'] }))).toBe('');
      acc.add(delta({ content: 23 }));
      acc.add(delta({ content: ' y' }));
      acc.add(delta({ reasoning_content: 'sk-proj-AbC1' }));
      acc.add(delta({ reasoning_content: ['23xyz-0123456789ABCDEF'] }));
      acc.add(delta({ reasoning: 23 }, 'stop'));
      const turn = acc.result();
      expect(turn.text).toBe('x sk-proj-AbC1 y');
      expect(turn.reasoning).toBe('sk-proj-AbC1');
      expect(JSON.stringify(turn)).not.toContain(KEY);
    });

    it('ignores tool-call arguments that are a number, boolean or null', () => {
      const acc = new TurnAccumulator();
      acc.add(
        delta({
          tool_calls: [
            { index: 0, id: 'a', function: { name: 'f', arguments: 4 } }
          ]
        })
      );
      acc.add(
        delta({
          tool_calls: [{ index: 0, function: { arguments: HEX.slice(1) } }]
        })
      );
      for (const odd of [true, null, 7.5]) {
        acc.add(
          delta({ tool_calls: [{ index: 0, function: { arguments: odd } }] })
        );
      }
      const [call] = acc.result().toolCalls;
      expect(call.arguments).toBe(HEX.slice(1));
      expect(call.arguments).not.toContain(HEX);
    });

    it('ignores a number after a finished call’s string arguments', () => {
      const acc = new TurnAccumulator();
      acc.add(
        delta(
          {
            tool_calls: [
              {
                index: 0,
                id: 'a',
                function: { name: 'f', arguments: 'nbk-Zq8Xw2Lm5TpR-' }
              }
            ]
          },
          'tool_calls'
        )
      );
      acc.add(
        delta({ tool_calls: [{ index: 0, function: { arguments: 20250117 } }] })
      );
      const { toolCalls } = acc.result();
      expect(toolCalls).toEqual([
        { id: 'a', name: 'f', arguments: 'nbk-Zq8Xw2Lm5TpR-' }
      ]);
    });

    it('ignores a legacy function_call’s arguments that are a number', () => {
      const acc = new TurnAccumulator();
      acc.add(delta({ function_call: { name: 'f', arguments: 4 } }));
      acc.add(
        delta({ function_call: { arguments: HEX.slice(1) } }, 'function_call')
      );
      expect(acc.result().toolCalls[0].arguments).toBe(HEX.slice(1));
    });

    it('still joins string arguments and takes an object as its JSON', () => {
      const acc = new TurnAccumulator();
      acc.add(
        delta({
          tool_calls: [
            { index: 0, id: 'a', function: { name: 'f', arguments: '{"n": ' } },
            { index: 1, id: 'b', function: { name: 'g', arguments: { n: 2 } } }
          ]
        })
      );
      acc.add(
        delta({ tool_calls: [{ index: 0, function: { arguments: '1}' } }] })
      );
      expect(acc.result().toolCalls.map(call => call.arguments)).toEqual([
        '{"n": 1}',
        '{"n":2}'
      ]);
    });
  });
});
