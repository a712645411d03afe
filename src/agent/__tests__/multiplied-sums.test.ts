import {
  answerFromMultipliedSums,
  multipliedSums,
  multipliedSumsNotice,
  multipliedSumsRequest
} from '../context/multiplied-sums';
import { toTextProtocol } from '../loop/text-protocol-messages';
import { AgentSession } from '../session';
import { FakeNotebook } from '../testing/fake-notebook';
import { ScriptedModel } from '../testing/scripted-model';
import { agentTools } from '../tools/all-tools';
import { ToolRegistry } from '../tools/registry';
import type { ChatMessage } from '../types';

/** The code Qwen2.5-Coder-1.5B ran in every walk of stops 54–56. */
const WALK = [
  'import pandas as pd',
  "df = pd.read_csv('sales.csv')",
  "region_revenue = df.groupby('region')[['units', 'unit_price']].sum().reset_index()",
  "region_revenue['total_revenue'] = region_revenue['units'] * region_revenue['unit_price']",
  'print(region_revenue)'
].join('\n');

describe('a product of two grouped sums', () => {
  it('is found in the walk’s code, with the columns it multiplies', () => {
    expect(multipliedSums(WALK)).toEqual({
      kind: 'grouped',
      left: 'units',
      right: 'unit_price'
    });
  });

  it('is found in the other ways code writes one', () => {
    const found = (code: string) => multipliedSums(code);
    const grouped = { kind: 'grouped', left: 'units', right: 'unit_price' };
    // Inline, both sides.
    expect(
      found(
        "rev = df.groupby('region')['units'].sum() * df.groupby('region')['unit_price'].sum()"
      )
    ).toEqual(grouped);
    // Two names, each a grouped sum of one column.
    expect(
      found(
        "u = df.groupby('region')['units'].sum()\np = df.groupby('region')['unit_price'].sum()\nprint(u * p)"
      )
    ).toEqual({ ...grouped, left: 'u', right: 'p' });
    // Attributes, `.mul`, `.agg('sum')`, a resample, a grouping over lines.
    expect(
      found("g = df.groupby('region').sum()\nprint(g.units * g.unit_price)")
    ).toEqual(grouped);
    expect(
      found(
        "g = df.groupby(['region', 'month']).agg('sum')\ng['units'].mul(g['unit_price'])"
      )
    ).toEqual(grouped);
    expect(
      found(
        "m = df.resample('M', on='date').sum()\nm['revenue'] = m['units'] * m['unit_price']"
      )
    ).toEqual(grouped);
    expect(
      found(
        "totals = (\n    df.groupby('region')[['units', 'unit_price']]\n    .sum()\n)\nx = totals['units'] * totals['unit_price']  # revenue"
      )
    ).toEqual(grouped);
    expect(
      found(
        "g = df.groupby(pd.Grouper(key='date', freq='M')).sum()\ng['units'] *= g['unit_price']"
      )
    ).toEqual(grouped);
    // A name bound to the grouping, its columns summed later (found by the
    // browser test: it was called a product of two totals).
    expect(
      found(
        "g = df.groupby('region')\nrevenue = g['units'].sum() * g['unit_price'].sum()"
      )
    ).toEqual(grouped);
    expect(
      found(
        "by_month = df.resample('M', on='date')\nby_month.units.sum() * by_month.unit_price.sum()"
      )
    ).toEqual(grouped);
    // Bound again to a frame: its columns' sums are totals again.
    expect(
      found(
        "g = df.groupby('region')\ng = df\ng['units'].sum() * g['unit_price'].sum()"
      )
    ).toEqual({ ...grouped, kind: 'totals' });
  });

  it('is found without groups: a column times another column’s sum, or two sums (the Q&A set’s 1.5B)', () => {
    expect(
      multipliedSums(
        "total_revenue = df['units'] * df['unit_price'].sum()\nprint(round(total_revenue, 2))"
      )
    ).toEqual({ kind: 'row-by-total', left: 'units', right: 'unit_price' });
    expect(
      multipliedSums(
        "b = joined[joined['segment'] == 'business']\nprint(b['units'] * b['unit_price'].sum())"
      )
    ).toEqual({ kind: 'row-by-total', left: 'units', right: 'unit_price' });
    expect(multipliedSums('print(df.units.sum() * df.unit_price)')).toEqual({
      kind: 'total-by-row',
      left: 'units',
      right: 'unit_price'
    });
    expect(
      multipliedSums(
        "print(round(df['units'].sum() * df['unit_price'].sum(), 2))"
      )
    ).toEqual({ kind: 'totals', left: 'units', right: 'unit_price' });
  });

  it('is not what right code writes, nor a sum times a constant, a quotient, a count times a mean, a comment or a string', () => {
    for (const code of [
      // Per row, then grouped.
      "df['revenue'] = df['units'] * df['unit_price']\nprint(df.groupby('region')['revenue'].sum())",
      "print((df['units'] * df['unit_price']).groupby(df['region']).sum())",
      "df.groupby('region').apply(lambda g: (g['units'] * g['unit_price']).sum())",
      // A weighted average, a share, a constant, a square.
      "g = df.groupby('region').sum()\nprint(g['revenue'] / g['units'])",
      "g = df.groupby('region')['revenue'].sum()\nprint(g / g.sum() * 100)",
      "g = df.groupby('region').sum()\nprint(g['units'] * 2, g['units'] ** 2)",
      // Named aggregations: a count times a mean is a sum.
      "g = df.groupby('region').agg(n=('units', 'count'), avg=('units', 'mean'))\nprint(g['n'] * g['avg'])",
      // Bound again to something else.
      "g = df.groupby('region').sum()\ng = df.copy()\nprint(g['units'] * g['unit_price'])",
      // A comment, a string, a per-row transform.
      "g = df.groupby('region').sum()\n# g['units'] * g['unit_price'] would be wrong\nprint(g)",
      "g = df.groupby('region').sum()\nprint(\"g['units'] * g['unit_price']\")",
      "df['t'] = df.groupby('region')['units'].transform('sum') * df['unit_price']",
      // Without groups: the sum of the products, a share, a column times its own sum, two frames, a mean.
      "print((df['units'] * df['unit_price']).sum())",
      "print(df['units'] / df['units'].sum() * 100)",
      "print(df['units'] * df['units'].sum())",
      "print(a['units'] * b['unit_price'].sum())",
      "print(df['units'] * df['unit_price'].mean())",
      'print(np.pi * df.units.sum())',
      ''
    ]) {
      expect(multipliedSums(code)).toBeNull();
    }
  });

  it('is described with the columns and the right code', () => {
    const product = {
      kind: 'grouped',
      left: 'units',
      right: 'unit_price'
    } as const;
    expect(multipliedSumsRequest(product)).toContain(
      "df['total'] = df['units'] * df['unit_price']"
    );
    expect(multipliedSumsNotice(product)).toContain(
      'code that computes units summed per group times unit_price summed per group, which is not the total of units × unit_price over the rows'
    );
    expect(
      multipliedSumsNotice({ ...product, kind: 'row-by-total' })
    ).toContain("each row's units times the sum of all unit_price");
  });
});

describe('a small model whose code multiplied sums', () => {
  const request = 'Load sales.csv and tell me the total revenue per region.';
  const conversation = (code: string, status: string): ChatMessage[] => [
    { role: 'system', content: 'sys' },
    { role: 'user', content: request },
    {
      role: 'assistant',
      content: '```python\n' + code + '\n```',
      toolCalls: [
        {
          id: 'c1',
          name: 'add_and_run_cell',
          arguments: JSON.stringify({ source: code })
        }
      ]
    },
    {
      role: 'tool',
      toolCallId: 'c1',
      content: `cell_id: c1 ${status}\n  region  total_revenue\n0   East      350112.51`
    }
  ];
  const OK = 'finished OK (execution count 1, took 0.1 s).';

  it('is told what is wrong and asked for corrected code, not for the answer', () => {
    const shown = toTextProtocol(conversation(WALK, OK), {
      restateRequest: true
    });
    const last = shown[shown.length - 1].content;
    expect(last).toContain(`"""\n${request}\n"""`);
    expect(last).toContain(
      multipliedSumsRequest({
        kind: 'grouped',
        left: 'units',
        right: 'unit_price'
      })
    );
    expect(last).not.toContain('reply now in words');
  });

  it('is told as before when the code is right, the run failed, or the profile is not small', () => {
    const right =
      "df['revenue'] = df['units'] * df['unit_price']\nprint(df.groupby('region')['revenue'].sum())";
    const restated = (messages: ChatMessage[]) =>
      toTextProtocol(messages, { restateRequest: true }).at(-1)!.content;
    expect(restated(conversation(right, OK))).toContain('reply now in words');
    expect(
      restated(conversation(WALK, 'raised an error (execution count 1).'))
    ).not.toContain('summed per group');
    expect(
      toTextProtocol(conversation(WALK, OK)).at(-1)!.content
    ).not.toContain('summed per group');
  });
});

describe('an answer whose numbers come from a product of sums', () => {
  const turn = (calls: Array<[string, string]>, answer: string) => {
    const messages: ChatMessage[] = [{ role: 'user', content: 'Revenue?' }];
    calls.forEach(([code, output], i) => {
      messages.push(
        {
          role: 'assistant',
          content: '',
          toolCalls: [
            { id: `c${i}`, name: 'run', arguments: JSON.stringify({ code }) }
          ]
        },
        { role: 'tool', toolCallId: `c${i}`, content: output }
      );
    });
    messages.push({ role: 'assistant', content: answer });
    return messages;
  };
  const codeOf = (call: { arguments: string }) =>
    (JSON.parse(call.arguments) as { code: string }).code;
  const RIGHT =
    "df['revenue'] = df['units'] * df['unit_price']\nprint(df.groupby('region')['revenue'].sum())";

  it('is found when a number it states was printed only by such code', () => {
    const messages = turn(
      [[WALK, 'North 655766.16\nEast 350112.51']],
      'North has the most revenue: 655,766.16.'
    );
    expect(answerFromMultipliedSums(messages, 0, codeOf)).toEqual({
      kind: 'grouped',
      left: 'units',
      right: 'unit_price'
    });
  });

  it('is not found when the answer states what right code printed after it', () => {
    const messages = turn(
      [
        [WALK, 'North 655766.16\nEast 350112.51'],
        [RIGHT, 'North 10120.57\nEast 7798.27']
      ],
      'North has the most revenue: 10,120.57.'
    );
    expect(answerFromMultipliedSums(messages, 0, codeOf)).toBeNull();
    // …nor for an answer without numbers.
    expect(
      answerFromMultipliedSums(
        turn([[WALK, 'North 655766.16']], 'North has the most.'),
        0,
        codeOf
      )
    ).toBeNull();
  });

  it('gets a notice under it in the transcript, saved with the chat', async () => {
    const s = new AgentSession({
      tools: new ToolRegistry(agentTools()),
      approvalMode: () => 'run-everything'
    });
    await s.send('Total revenue per region of sales.csv?', {
      model: () =>
        new ScriptedModel([
          { toolCalls: [{ name: 'run_code', arguments: { code: WALK } }] },
          { text: 'North: 655766.16, East: 350112.51.' }
        ]),
      notebook: new FakeNotebook({
        execute: () => [
          {
            type: 'stream',
            name: 'stdout',
            text: 'North 655766.16\nEast 350112.51\n'
          }
        ]
      })
    });
    const notice = multipliedSumsNotice({
      kind: 'grouped',
      left: 'units',
      right: 'unit_price'
    });
    const items = s.getSnapshot().items;
    expect(items.at(-1)).toMatchObject({ kind: 'notice', text: notice });
    expect(JSON.stringify(s.record().entries)).toContain(notice);
  });
});
