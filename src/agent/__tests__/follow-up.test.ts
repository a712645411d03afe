/**
 * Follow-up questions with a small model: what the kernel holds is said
 * before the first model call, and an answer to a question about the data
 * from a turn that ran no code is sent back whatever its form.
 */
import { isDataQuestion } from '../context/data-question';
import { KERNEL_PROBE, kernelNote } from '../context/kernel-variables';
import { arrayConversation } from '../loop/conversation';
import { COMPUTE_REPAIR_NOTICE } from '../loop/next-step';
import { runAgent } from '../loop/run-agent';
import { runConfig } from '../loop/run-config';
import { FakeNotebook } from '../testing/fake-notebook';
import { ScriptedModel } from '../testing/scripted-model';
import { agentTools } from '../tools/all-tools';
import { ToolRegistry } from '../tools/registry';
import { variablesProbeCode } from '../tools/variables-probe';
import type { AgentEvent, ChatMessage } from '../types';

const NAMES = ['df', 'date', 'region', 'product', 'unit_price'];

describe('a question about the data', () => {
  it('names a variable or a column, or asks, in a kernel that holds data', () => {
    expect(
      isDataQuestion(
        'Which product has the highest mean unit_price?',
        NAMES,
        true
      )
    ).toBe(true);
    expect(isDataQuestion('now per month', NAMES, true)).toBe(true);
    expect(isDataQuestion('plot it', NAMES, true)).toBe(true);
    expect(
      isDataQuestion('How many of those are in the West?', NAMES, true)
    ).toBe(true);
    expect(isDataQuestion('the region totals for 2024', NAMES, true)).toBe(
      true
    );
  });

  it('is not small talk, a question about the agent’s work, or asked of an empty kernel', () => {
    expect(isDataQuestion('Thanks!', NAMES, true)).toBe(false);
    expect(isDataQuestion('ok great', NAMES, true)).toBe(false);
    expect(isDataQuestion('Explain what you did in cell 2', NAMES, true)).toBe(
      false
    );
    expect(isDataQuestion('Which product sells most?', NAMES, false)).toBe(
      false
    );
    // A column's name inside a longer word is not a mention.
    expect(isDataQuestion('regional wording, please', ['region'], true)).toBe(
      false
    );
  });
});

describe('the kernel note', () => {
  it('lists the user’s variables with DataFrame columns and dtypes', () => {
    expect(
      kernelNote([
        {
          name: 'df',
          type: 'pandas.DataFrame',
          shape: [200, 2],
          columns: [
            ['region', 'object'],
            ['units', 'int64']
          ],
          columnCount: 2
        },
        { name: 'top', type: 'builtins.str', len: 4, repr: "'West'" },
        { name: 'total', type: 'numpy.float64', shape: [], repr: '1234.5' }
      ])
    ).toBe(
      'Variables in the kernel now:\n' +
        '- df: pandas.DataFrame; shape (200, 2); columns region (object), units (int64)\n' +
        "- top: builtins.str; 'West'\n" +
        '- total: numpy.float64; 1234.5'
    );
    expect(kernelNote([])).toBeNull();
    expect(kernelNote(null)).toBeNull();
  });
});

describe('a follow-up in the same chat (small profile)', () => {
  it('is told the kernel’s variables, and a name answered from memory goes back to be computed', async () => {
    const probe = variablesProbeCode(KERNEL_PROBE);
    const rows = [
      {
        name: 'df',
        type: 'pandas.DataFrame',
        shape: [200, 3],
        columns: [
          ['region', 'object'],
          ['product', 'object'],
          ['unit_price', 'float64']
        ],
        columnCount: 3
      }
    ];
    const notebook = new FakeNotebook({
      execute: code =>
        code === probe
          ? [
              {
                type: 'stream',
                name: 'stdout',
                text: `${JSON.stringify(rows)}\n`
              }
            ]
          : [{ type: 'stream', name: 'stdout', text: 'Gadget\n' }]
    });
    const model = new ScriptedModel([
      // From memory: no number in it, no file named.
      { text: 'The product with the highest mean unit_price is Widget.' },
      {
        toolCalls: [
          {
            name: 'insert_cell',
            arguments: {
              source: "print(df.groupby('product').unit_price.mean().idxmax())",
              run: true
            }
          }
        ]
      },
      { text: 'It is Gadget.' }
    ]);
    const tools = new ToolRegistry(agentTools());
    const messages: ChatMessage[] = [
      { role: 'system', content: 's' },
      { role: 'user', content: 'Load sales.csv and show the regions.' },
      { role: 'assistant', content: 'Done: North, South.' },
      {
        role: 'user',
        content: 'Which product has the highest mean unit_price?'
      }
    ];
    const events: AgentEvent[] = [];
    const outcome = await runAgent(
      runConfig({ model, tools, computeFirst: { protocol: 'native' } }),
      {
        notebook,
        conversation: arrayConversation(messages),
        signal: new AbortController().signal,
        onEvent: e => events.push(e)
      }
    );
    expect(outcome.reason).toBe('completed');
    const first = model.requests[0].messages;
    expect(first[4]).toMatchObject({ role: 'user', observation: true });
    expect(first[4].content).toContain(
      'columns region (object), product (object), unit_price (float64)'
    );
    expect(model.requests[1].messages.at(-1)?.content).toMatch(
      /no code has run yet/
    );
    expect(model.requests[1].toolChoice).toBe('required');
    expect(events).toContainEqual({
      type: 'notice',
      text: COMPUTE_REPAIR_NOTICE
    });
    expect(messages.at(-1)).toMatchObject({ content: 'It is Gadget.' });
  });

  it('lets small talk be answered in words', async () => {
    const notebook = new FakeNotebook({
      execute: () => [
        {
          type: 'stream',
          name: 'stdout',
          text: `${JSON.stringify([{ name: 'df', type: 'pandas.DataFrame', shape: [2, 1] }])}\n`
        }
      ]
    });
    const model = new ScriptedModel([{ text: 'You are welcome.' }]);
    const outcome = await runAgent(
      runConfig({
        model,
        tools: new ToolRegistry(agentTools()),
        computeFirst: { protocol: 'native' }
      }),
      {
        notebook,
        conversation: arrayConversation([
          { role: 'system', content: 's' },
          { role: 'user', content: 'Thanks!' }
        ]),
        signal: new AbortController().signal,
        onEvent: () => undefined
      }
    );
    expect(outcome.steps).toBe(1);
  });
});
