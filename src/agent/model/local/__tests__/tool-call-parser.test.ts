import { TurnAccumulator, type IAssistantTurn } from '../../accumulator';
import type { IChatChunk } from '../../types';
import type { ToolCallFamily } from '../families';
import { ToolCallParser } from '../tool-call-parser';

/** Feed `pieces` through a parser and accumulate the chunks it emits. */
function run(
  family: ToolCallFamily,
  pieces: string[],
  options: { startInThinking?: boolean; firstId?: number } = {}
): { turn: IAssistantTurn; chunks: IChatChunk[] } {
  const parser = new ToolCallParser({ family, ...options });
  const acc = new TurnAccumulator();
  const chunks: IChatChunk[] = [];
  for (const piece of pieces) {
    chunks.push(...parser.push(piece));
  }
  chunks.push(...parser.finish());
  chunks.forEach(chunk => acc.add(chunk));
  return { turn: acc.result(), chunks };
}

/** Every way to cut `text` in two, plus one character at a time. */
function splits(text: string): string[][] {
  const out: string[][] = [[text], Array.from(text)];
  for (let i = 1; i < text.length; i++) {
    out.push([text.slice(0, i), text.slice(i)]);
  }
  return out;
}

/** Deterministic random cuts into many pieces (tokens of 1–6 characters). */
function randomSplits(text: string, count: number): string[][] {
  let seed = 42;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const out: string[][] = [];
  for (let n = 0; n < count; n++) {
    const pieces: string[] = [];
    for (let i = 0; i < text.length;) {
      const len = 1 + Math.floor(rand() * 6);
      pieces.push(text.slice(i, i + len));
      i += len;
    }
    out.push(pieces);
  }
  return out;
}

interface ICase {
  name: string;
  family: ToolCallFamily;
  raw: string;
  text: string;
  reasoning?: string;
  calls: Array<{ name: string; arguments: Record<string, unknown> }>;
  startInThinking?: boolean;
}

const CASES: ICase[] = [
  {
    name: 'Qwen2.5: text, then two Hermes calls',
    family: 'hermes',
    raw:
      'I will look at the notebook first.\n<tool_call>\n{"name": "read_notebook", "arguments": {}}\n</tool_call>\n' +
      '<tool_call>\n{"name": "inspect_variables", "arguments": {"names": ["df"]}}\n</tool_call><|im_end|>',
    text: 'I will look at the notebook first.\n',
    calls: [
      { name: 'read_notebook', arguments: {} },
      { name: 'inspect_variables', arguments: { names: ['df'] } }
    ]
  },
  {
    name: 'Qwen3: thinking, then a call whose code has quotes, newlines and <',
    family: 'hermes',
    raw:
      '<think>\nThe user wants the mean; df exists.\n</think>\n\n<tool_call>\n' +
      '{"name": "insert_cell", "arguments": {"source": "m = df[\\"a\\"].mean()\\nprint(m < 3, \'<b>\')", "after_cell_id": "c1"}}\n' +
      '</tool_call><|im_end|>',
    text: '',
    reasoning: '\nThe user wants the mean; df exists.\n',
    calls: [
      {
        name: 'insert_cell',
        arguments: {
          source: 'm = df["a"].mean()\nprint(m < 3, \'<b>\')',
          after_cell_id: 'c1'
        }
      }
    ]
  },
  {
    name: 'Qwen3: empty thinking, then a plain answer',
    family: 'hermes',
    raw: '<think>\n\n</think>\n\nThe mean of **a** is 5.8.<|im_end|>',
    text: 'The mean of **a** is 5.8.',
    reasoning: '\n\n',
    calls: []
  },
  {
    name: 'DeepSeek-style: the template opened <think>',
    family: 'hermes',
    startInThinking: true,
    raw: 'Compute it.</think>The answer is 4.<|endoftext|>',
    text: 'The answer is 4.',
    reasoning: 'Compute it.',
    calls: []
  },
  {
    name: 'granite-4.0: Hermes call without newlines',
    family: 'hermes',
    raw: '<tool_call>{"name": "run_cell", "arguments": {"cell_id": "c7"}}</tool_call><|end_of_text|>',
    text: '',
    calls: [{ name: 'run_cell', arguments: { cell_id: 'c7' } }]
  },
  {
    name: 'Llama 3.2: bare JSON with "parameters"',
    family: 'llama3-json',
    raw: '{"name": "run_cell", "parameters": {"cell_id": "c1"}}<|eot_id|>',
    text: '',
    calls: [{ name: 'run_cell', arguments: { cell_id: 'c1' } }]
  },
  {
    name: 'Llama 3.1: <|python_tag|>, two calls separated by ;',
    family: 'llama3-json',
    raw:
      '<|python_tag|>{"name": "read_notebook", "parameters": {}}; ' +
      '{"name": "read_cell", "parameters": {"cell_id": "x{1}"}}<|eom_id|>',
    text: '',
    calls: [
      { name: 'read_notebook', arguments: {} },
      { name: 'read_cell', arguments: { cell_id: 'x{1}' } }
    ]
  },
  {
    name: 'Llama 3.2: a plain answer',
    family: 'llama3-json',
    raw: '\n\nThe notebook has {3} cells.<|eot_id|>',
    text: '\n\nThe notebook has {3} cells.',
    calls: []
  },
  {
    name: 'Llama 3.2: a JSON answer that is not a call stays text',
    family: 'llama3-json',
    raw: '{"mean": 5.8, "rows": 10}<|eot_id|>',
    text: '{"mean": 5.8, "rows": 10}',
    calls: []
  },
  {
    name: 'LFM2: pythonic call, then text',
    family: 'lfm2',
    raw:
      "<|tool_call_start|>[insert_cell(source=\"import pandas as pd\\nprint('ok')\", after_cell_id='c1'), " +
      'run_cell(cell_id="c2", timeout=30.5, wait=True, tags=["a", None])]<|tool_call_end|>Inserting and running the cell.<|im_end|>',
    text: 'Inserting and running the cell.',
    calls: [
      {
        name: 'insert_cell',
        arguments: {
          source: "import pandas as pd\nprint('ok')",
          after_cell_id: 'c1'
        }
      },
      {
        name: 'run_cell',
        arguments: {
          cell_id: 'c2',
          timeout: 30.5,
          wait: true,
          tags: ['a', null]
        }
      }
    ]
  },
  {
    name: 'LFM2: JSON inside the markers (JSON system-prompt mode)',
    family: 'lfm2',
    raw: '<|tool_call_start|>[{"name": "read_notebook", "arguments": {}}]<|tool_call_end|><|im_end|>',
    text: '',
    calls: [{ name: 'read_notebook', arguments: {} }]
  },
  {
    name: 'Hermes: a malformed block is shown as text, not lost',
    family: 'hermes',
    raw: 'Try: <tool_call>{"name": run_cell}</tool_call> done',
    text: 'Try: <tool_call>{"name": run_cell}</tool_call> done',
    calls: []
  },
  {
    name: 'Hermes: an unterminated call at the end of the stream still counts',
    family: 'hermes',
    raw: '<tool_call>\n{"name": "read_notebook", "arguments": {}}\n',
    text: '',
    calls: [{ name: 'read_notebook', arguments: {} }]
  },
  {
    name: 'plain family: markers of other families are text',
    family: 'plain',
    raw: 'Use <tool_call> tags.<|im_end|>',
    text: 'Use <tool_call> tags.',
    calls: []
  }
];

describe('ToolCallParser', () => {
  describe.each(CASES)('$name', c => {
    const expected = {
      text: c.text,
      calls: c.calls.map((call, i) => ({
        id: `call_local_${i}`,
        name: call.name,
        arguments: JSON.stringify(call.arguments)
      })),
      finishReason: c.calls.length ? 'tool_calls' : 'stop',
      reasoning: c.reasoning
    };
    const check = (pieces: string[]) => {
      const { turn } = run(c.family, pieces, {
        startInThinking: c.startInThinking
      });
      return {
        text: turn.text,
        calls: turn.toolCalls,
        finishReason: turn.finishReason,
        reasoning: turn.reasoning
      };
    };

    it('parses the whole text', () => {
      expect(check([c.raw])).toEqual(expected);
    });

    it('gives the same result for every split point and one character at a time', () => {
      for (const pieces of splits(c.raw)) {
        expect({ pieces, ...check(pieces) }).toEqual({ pieces, ...expected });
      }
    });

    it('gives the same result for random token boundaries', () => {
      for (const pieces of randomSplits(c.raw, 50)) {
        expect({ pieces, ...check(pieces) }).toEqual({ pieces, ...expected });
      }
    });
  });

  it('holds back a partial marker instead of leaking it into content', () => {
    const parser = new ToolCallParser({ family: 'hermes' });
    const first = parser.push('Reading <tool_');
    expect(first).toEqual([
      {
        choices: [
          { index: 0, delta: { content: 'Reading ' }, finish_reason: null }
        ]
      }
    ]);
    expect(parser.push('call>{"name": "read_notebook", "argu')).toEqual([]);
    const done = parser.push('ments": {}}</tool_call>');
    expect(done[0].choices?.[0].delta?.tool_calls).toEqual([
      {
        index: 0,
        id: 'call_local_0',
        type: 'function',
        function: { name: 'read_notebook', arguments: '{}' }
      }
    ]);
  });

  it('releases a held-back "<" that turned out to be text', () => {
    const parser = new ToolCallParser({ family: 'hermes' });
    expect(parser.push('a <')).toEqual([
      { choices: [{ index: 0, delta: { content: 'a ' }, finish_reason: null }] }
    ]);
    expect(parser.push(' b')[0].choices?.[0].delta?.content).toBe('< b');
  });

  it('streams thinking as reasoning while it arrives', () => {
    const parser = new ToolCallParser({ family: 'hermes' });
    const chunks = parser.push('<think>Let me see');
    expect(chunks.map(c => c.choices?.[0].delta)).toEqual([
      { reasoning_content: 'Let me see' }
    ]);
  });

  it('numbers ids from firstId and indexes from 0, and reports the next id', () => {
    const parser = new ToolCallParser({ family: 'hermes', firstId: 5 });
    const chunks = [
      ...parser.push('<tool_call>{"name": "a", "arguments": {}}</tool_call>'),
      ...parser.push('<tool_call>{"name": "b", "arguments": {}}</tool_call>'),
      ...parser.finish()
    ];
    const calls = chunks.flatMap(c => c.choices?.[0].delta?.tool_calls ?? []);
    expect(calls.map(c => [c.index, c.id])).toEqual([
      [0, 'call_local_5'],
      [1, 'call_local_6']
    ]);
    expect(parser.nextId).toBe(7);
    expect(chunks[chunks.length - 1].choices?.[0].finish_reason).toBe(
      'tool_calls'
    );
  });

  it('finishes with "length" when generation hit the token limit', () => {
    const parser = new ToolCallParser({ family: 'hermes' });
    parser.push('The mean is');
    const last = parser.finish('length');
    expect(last[last.length - 1].choices?.[0].finish_reason).toBe('length');
  });

  it('drops extra end tokens named by the caller', () => {
    const { turn } = run('plain', ['Hi<|end|>'], {});
    expect(turn.text).toBe('Hi<|end|>');
    const parser = new ToolCallParser({
      family: 'plain',
      dropTokens: ['<|end|>']
    });
    const acc = new TurnAccumulator();
    [
      ...parser.push('Hi<|en'),
      ...parser.push('d|>'),
      ...parser.finish()
    ].forEach(c => acc.add(c));
    expect(acc.result().text).toBe('Hi');
  });
});
