/**
 * Recorded streams of real OpenAI-compatible servers (fixtures/chunks), fed
 * through TurnAccumulator. Each test pins the exact turn its server's quirk
 * must produce; each fails if the accumulator rule for that quirk is removed.
 */
import { TurnAccumulator, type IAssistantTurn } from '../model/accumulator';
import { extractCodeBlocks } from '../loop/code-blocks';
import { describeModelError, ModelStreamError } from '../model/errors';
import { fixtureNames, parseSse, readFixture } from './fixtures/chunks/sse';

const tested = new Set<string>();

/** Feed one fixture to a fresh accumulator; the error it threw, if any. */
function play(name: string): {
  acc: TurnAccumulator;
  turn: IAssistantTurn;
  added: string;
  error: unknown;
} {
  tested.add(name);
  const acc = new TurnAccumulator();
  let added = '';
  let error: unknown = null;
  try {
    for (const chunk of parseSse(readFixture(name))) {
      added += acc.add(chunk);
    }
  } catch (e) {
    error = e;
  }
  return { acc, turn: acc.result(), added, error };
}

/** Synthesized ids: `call_<position>_<per-turn suffix>`. */
const SYNTHETIC = /^call_\d+_[a-z0-9]+$/;

describe('stream quirks of OpenAI-compatible servers', () => {
  it('openai-usage: parallel calls, usage from the last chunk with empty choices', () => {
    const { turn, error } = play('openai-usage');
    expect(error).toBeNull();
    expect(turn).toEqual({
      text: '',
      toolCalls: [
        {
          id: 'call_Vx1aQ',
          name: 'insert_cell',
          arguments: '{"source": "df.describe()"}'
        },
        { id: 'call_Wz2bR', name: 'run_cell', arguments: '{"cell_id": "c1"}' }
      ],
      finishReason: 'tool_calls',
      usage: { promptTokens: 812, completionTokens: 41 }
    });
  });

  it('azure-prompt-filter: a first chunk with empty choices and filter results', () => {
    const { turn, added, error } = play('azure-prompt-filter');
    expect(error).toBeNull();
    expect(added).toBe('The mean is 5.8.');
    expect(turn).toEqual({
      text: 'The mean is 5.8.',
      toolCalls: [],
      finishReason: 'stop',
      usage: undefined
    });
  });

  it('ollama-repeated-index: a new id at index 0 starts a second call; "stop" is a tool turn', () => {
    const { turn } = play('ollama-repeated-index');
    expect(turn.toolCalls).toEqual([
      {
        id: 'call_8k2ld9xq',
        name: 'insert_cell',
        arguments: '{"source":"import pandas as pd"}'
      },
      {
        id: 'call_p3m1x0za',
        name: 'insert_cell',
        arguments: `{"source":"df = pd.read_csv('data.csv')"}`
      }
    ]);
    expect(turn.finishReason).toBe('tool_calls');
    expect(turn.usage).toEqual({ promptTokens: 402, completionTokens: 38 });
  });

  it('ollama-thinking-tool-call: "reasoning" is kept apart from the answer', () => {
    const { turn, added } = play('ollama-thinking-tool-call');
    expect(added).toBe('');
    expect(turn.text).toBe('');
    expect(turn.reasoning).toBe('The user wants the row count.');
    expect(turn.toolCalls).toEqual([
      {
        id: 'call_r8s0vn1c',
        name: 'insert_cell',
        arguments: '{"source":"len(df)"}'
      }
    ]);
  });

  it('deepseek-reasoning-content: reasoning_content never reaches the answer text', () => {
    const { turn, added } = play('deepseek-reasoning-content');
    expect(added).toBe('The mean is 5.8.');
    expect(turn).toEqual({
      text: 'The mean is 5.8.',
      reasoning: 'Mean of 4, 6 and 7.4 is 5.8.',
      toolCalls: [],
      finishReason: 'stop',
      usage: { promptTokens: 20, completionTokens: 64 }
    });
  });

  it('openrouter-reasoning-keepalive: comments skipped, "reasoning" collected', () => {
    const { turn } = play('openrouter-reasoning-keepalive');
    expect(turn.text).toBe('Here is the plot.');
    expect(turn.reasoning).toBe('Plot it with matplotlib.');
    expect(turn.finishReason).toBe('stop');
    expect(turn.usage).toEqual({ promptTokens: 120, completionTokens: 14 });
  });

  it('vllm-missing-ids: stable synthesized ids, arguments absent in the first delta', () => {
    const { acc, turn } = play('vllm-missing-ids');
    expect(turn.toolCalls.map(c => [c.name, c.arguments])).toEqual([
      ['insert_cell', '{"source": "x = 1"}'],
      ['run_cell', '{"cell_id": "c1"}']
    ]);
    const [first, second] = turn.toolCalls.map(c => c.id);
    expect(first).toMatch(SYNTHETIC);
    expect(second).toMatch(SYNTHETIC);
    expect(first).not.toBe(second);
    // Stable: the assistant message and the tool messages must agree.
    expect(acc.result().toolCalls.map(c => c.id)).toEqual([first, second]);
    // And another turn's calls get other ids.
    expect(play('vllm-missing-ids').turn.toolCalls[0].id).not.toBe(first);
    expect(turn.finishReason).toBe('tool_calls');
  });

  it('lmstudio-empty-ids: "" ids are replaced, "" names do not split the call', () => {
    const { turn } = play('lmstudio-empty-ids');
    expect(turn.toolCalls).toHaveLength(1);
    expect(turn.toolCalls[0]).toMatchObject({
      name: 'run_cell',
      arguments: '{"cell_id":"c7"}'
    });
    expect(turn.toolCalls[0].id).toMatch(SYNTHETIC);
  });

  it('llamacpp-repeated-id-name: repeated id and name are not appended or split', () => {
    const { turn } = play('llamacpp-repeated-id-name');
    expect(turn).toEqual({
      text: '',
      toolCalls: [
        {
          id: 'Yp2c8EfgE2hXBhqo0X7dKQGJ2Lxw',
          name: 'insert_cell',
          arguments: '{"source": "print(6 * 7)"}'
        },
        {
          id: 'qR1v9TtaZ0mKcW4nE8sUfB3hJ6yD',
          name: 'run_cell',
          arguments: '{"cell_id": "c2"}'
        }
      ],
      finishReason: 'tool_calls',
      usage: { promptTokens: 388, completionTokens: 31 }
    });
  });

  it('object-arguments: an arguments object is stringified', () => {
    const { turn } = play('object-arguments');
    expect(turn.toolCalls).toEqual([
      {
        id: 'call_obj1',
        name: 'insert_cell',
        arguments: '{"source":"print(1)","position":2}'
      }
    ]);
  });

  it('gemini-missing-index: whole calls without index are separate calls', () => {
    const { turn } = play('gemini-missing-index');
    expect(turn.toolCalls.map(c => c.arguments)).toEqual([
      '{"source":"a = 1"}',
      '{"source":"b = 2"}'
    ]);
    expect(turn.toolCalls.every(c => c.name === 'insert_cell')).toBe(true);
    expect(new Set(turn.toolCalls.map(c => c.id)).size).toBe(2);
    // Gemini says "stop" after tool calls.
    expect(turn.finishReason).toBe('tool_calls');
  });

  it('missing-index-fragments: a new id starts a call, bare fragments append', () => {
    const { turn } = play('missing-index-fragments');
    expect(turn.toolCalls).toEqual([
      {
        id: 'a1b2c3d4e',
        name: 'insert_cell',
        arguments: '{"source": "x = 1"}'
      },
      { id: 'f5g6h7i8j', name: 'run_cell', arguments: '{"cell_id": "c1"}' }
    ]);
  });

  it('index-from-one: an index is a key, not a position', () => {
    const { turn } = play('index-from-one');
    expect(turn.text).toBe('Let me run it.');
    expect(turn.toolCalls).toEqual([
      { id: 'toolu_01A', name: 'run_cell', arguments: '{"cell_id":"c3"}' }
    ]);
  });

  it('missing-finish-no-done: tool calls without any finish_reason are a tool turn', () => {
    const { turn, error } = play('missing-finish-no-done');
    expect(error).toBeNull();
    expect(turn.toolCalls).toEqual([
      { id: 'call_nf1', name: 'read_notebook', arguments: '{}' }
    ]);
    expect(turn.finishReason).toBe('tool_calls');
  });

  it('empty-tool-calls: "tool_calls" with nothing called is a plain answer', () => {
    const { turn } = play('empty-tool-calls');
    expect(turn).toEqual({
      text: 'All cells ran without errors.',
      toolCalls: [],
      finishReason: 'stop',
      usage: undefined
    });
  });

  it('legacy-function-call: one tool call with a synthesized id', () => {
    const { turn } = play('legacy-function-call');
    expect(turn.toolCalls).toHaveLength(1);
    expect(turn.toolCalls[0]).toMatchObject({
      name: 'insert_cell',
      arguments: '{"source": "df.head()"}'
    });
    expect(turn.toolCalls[0].id).toMatch(SYNTHETIC);
    expect(turn.finishReason).toBe('tool_calls');
  });

  it('sse-framing: CRLF, comments, event/id/retry fields and multi-line data', () => {
    // Guard against an editor or git normalizing the line ends away.
    expect(readFixture('sse-framing')).toContain('\r\n');
    const { turn } = play('sse-framing');
    expect(turn.text).toBe('Hello, world');
    expect(turn.finishReason).toBe('stop');
  });

  it('no-done: a stream closed without [DONE] keeps everything before it', () => {
    const { turn, error } = play('no-done');
    expect(error).toBeNull();
    expect(turn.text).toBe('Done: 3 cells updated.');
    expect(turn.finishReason).toBe('stop');
  });

  it('midstream-error: an error object stops the turn, the partial text is kept', () => {
    const { turn, added, error } = play('midstream-error');
    expect(error).toBeInstanceOf(ModelStreamError);
    expect(added).toBe('The first three rows');
    expect(turn.text).toBe('The first three rows');
    const described = describeModelError(error);
    expect(described.kind).toBe('server');
    expect(described.message).toBe(
      'The model server failed in the middle of its answer: ' +
        'The server had an error while processing your request. Sorry about that!'
    );
  });

  it('tgi-error-string: an error given as a string is reported too', () => {
    const { turn, error } = play('tgi-error-string');
    expect(error).toBeInstanceOf(ModelStreamError);
    expect(turn.text).toBe('Loading the data');
    expect(describeModelError(error).message).toContain(
      'CUDA out of memory. Tried to allocate 2.00 GiB'
    );
  });

  // Real streams of a small model (Qwen2.5-Coder-1.5B on llama-server):
  // why the small profile uses the text protocol (docs/evaluation.md, "Real models").
  it('qwen-coder-call-as-text: a call written as JSON in a fence is text, not a call', () => {
    const { turn, error } = play('qwen-coder-call-as-text');
    expect(error).toBeNull();
    expect(turn.toolCalls).toEqual([]);
    expect(turn.finishReason).toBe('stop');
    expect(turn.text).toMatch(/^```json\n\{\n {2}"name": "insert_cell"/);
    // The text protocol does not run a JSON call as Python.
    expect(extractCodeBlocks(turn.text)).toEqual([]);
    expect(turn.usage?.promptTokens).toBeGreaterThan(0);
  });

  it('qwen-coder-no-call: a data question answered with a python block, cut at the length limit', () => {
    const { turn } = play('qwen-coder-no-call');
    expect(turn.toolCalls).toEqual([]);
    expect(turn.finishReason).toBe('length');
    expect(turn.text).toContain("pd.read_csv('sales.csv')");
  });

  it('qwen-coder-required-ignored: tool_choice required, still plain text; its code block is what runs', () => {
    const { turn } = play('qwen-coder-required-ignored');
    expect(turn.toolCalls).toEqual([]);
    const [block] = extractCodeBlocks(turn.text);
    expect(block).toContain('print(row_count)');
  });

  it('has a test for every recorded stream', () => {
    expect([...tested].sort()).toEqual(fixtureNames());
  });
});
