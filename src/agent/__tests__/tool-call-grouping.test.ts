/**
 * Which call each streamed tool-call fragment joins, from the shared table
 * tests/tool_call_cases.json, which tests/test_tool_call_grouping.py also
 * plays through the server's copy of the rule
 * (jupyterlab_notebook_agent/tool_call_grouping.py): the server's look for a
 * key streamed in pieces must join the same fragments this reader joins.
 */
import { readFileSync } from 'fs';
import { join } from 'path';

import { TurnAccumulator } from '../model/accumulator';
import type { IChatChunk } from '../model/types';

interface ICase {
  name: string;
  fragments: Record<string, unknown>[];
  calls: [string, string][];
}

const file = join(__dirname, '..', '..', '..', 'tests', 'tool_call_cases.json');
const cases = JSON.parse(readFileSync(file, 'utf8')) as ICase[];

describe('tool-call fragments, as the shared table says', () => {
  it.each(cases.map(c => [c.name, c] as const))('%s', (_name, c) => {
    const acc = new TurnAccumulator();
    for (const fragment of c.fragments) {
      const chunk = {
        choices: [
          { index: 0, delta: { tool_calls: [fragment] }, finish_reason: null }
        ]
      } as unknown as IChatChunk;
      acc.add(chunk);
    }
    const calls = acc
      .result()
      .toolCalls.map(call => [call.name, call.arguments]);
    expect(calls).toEqual(c.calls);
  });
});
