import { statedNumbers, unsupportedNumbers } from '../context/claims';
import type { ICellSnapshot } from '../ports';
import { AgentSession } from '../session';
import { ScriptedModel } from '../testing/scripted-model';
import { FakeNotebook } from '../testing/fake-notebook';
import { agentTools } from '../tools/all-tools';
import { ToolRegistry } from '../tools/registry';
import { assessEvidence, isWorkingCode } from '../workflows/evidence';
import { COMPUTE_REPAIR_NOTICE } from '../loop/next-step';
import { transcriptOf } from '../session/transcript';
import { MiniKernelNotebook } from './mini-kernel';

const session = () =>
  new AgentSession({
    tools: new ToolRegistry(agentTools()),
    approvalMode: () => 'run-everything'
  });

const call = (name: string, args: Record<string, unknown>) => ({
  toolCalls: [{ name, arguments: args }]
});

const notices = (s: AgentSession) =>
  s
    .getSnapshot()
    .items.filter(i => i.kind === 'notice')
    .map(i => i.text);

const cell = (over: Partial<ICellSnapshot>): ICellSnapshot => ({
  id: 'c',
  type: 'code',
  source: '',
  executionCount: 1,
  outputs: [],
  ...over
});

const stdout = (text: string) => [
  { type: 'stream' as const, name: 'stdout' as const, text }
];

describe('numbers a text states, and what backs them', () => {
  it('takes numbers of prose, not of code, identifiers, numbering or single digits', () => {
    expect(
      statedNumbers(
        '## 2. Results\n1. The mean is 42.5 and 17% are late; 3 groups.\n' +
          'Cell `a1b2c3` ran `x = 99`, Q4 and x2 too.\n```python\nprint(1234)\n```\n' +
          'Total: 1,234,567.'
      )
    ).toEqual(['42.5', '17%', '1,234,567']);
  });

  it('backs a number by a rounded, truncated, percent or scaled value, and nothing else', () => {
    const evidence = ['mean    42.4817\nshare 0.1733\nrows 1234567'];
    expect(
      unsupportedNumbers(
        'Mean 42.48 (about 42.5), 17.3% late, 1.23 million rows.',
        evidence
      )
    ).toEqual([]);
    expect(
      unsupportedNumbers('The median is 38.2 and the max 97.', evidence)
    ).toEqual(['38.2', '97']);
  });
});

describe('whether a notebook holds the work it claims', () => {
  it('tells working code from comments, pass, placeholders, imports and magics', () => {
    expect(isWorkingCode('# Your code goes here')).toBe(false);
    expect(isWorkingCode('\n  pass\n...\n')).toBe(false);
    expect(isWorkingCode('import pandas as pd\n%matplotlib inline')).toBe(
      false
    );
    expect(isWorkingCode('"""TODO"""\nraise NotImplementedError()')).toBe(
      false
    );
    expect(isWorkingCode('# load\ndf = pd.read_csv("x.csv")')).toBe(true);
  });

  it('needs a working cell that printed something or defined what the summary cites', () => {
    const summary = cell({
      id: 's',
      type: 'markdown',
      source: '## Summary\nThe table `clean` is ready.'
    });
    expect(assessEvidence([cell({ source: 'y = 2' }), summary])).toEqual({
      ok: false,
      reason: 'no code cell produced output or defined what the summary cites'
    });
    expect(assessEvidence([cell({ source: 'clean = 2' }), summary])).toEqual({
      ok: true
    });
    expect(assessEvidence([summary])).toEqual({
      ok: false,
      reason: 'the notebook has no code cells'
    });
  });

  it('needs the summary’s numbers in the outputs (or in the code or the request)', () => {
    const code = cell({
      source: 'n = 250\nprint(total / n)',
      outputs: stdout('3.14159\n')
    });
    const summary = (text: string) =>
      cell({ id: 's', type: 'markdown', source: `## Summary\n${text}` });
    expect(
      assessEvidence([code, summary('Of 250 orders, the mean is 3.14.')])
    ).toEqual({ ok: true });
    expect(
      assessEvidence(
        [code, summary('The mean is 3.14 and revenue grew 12.5% in 2023.')],
        'Analyse 2023'
      )
    ).toEqual({
      ok: false,
      reason: 'the summary states 12.5%, which no output of the notebook shows'
    });
  });
});

describe('the summary’s rankings', () => {
  it('must be what the printed tables show (the walk’s Generate: East said highest, North printed highest)', () => {
    const code = cell({
      source:
        "region_revenue = df.groupby('region')['units'].sum().reset_index()\nprint(region_revenue)",
      outputs: stdout(
        '  region  units\n0   East    297\n1  North    408\n2  South    336\n3   West    245\n'
      )
    });
    const summary = (text: string) =>
      cell({ id: 's', type: 'markdown', source: `## Summary\n${text}` });
    expect(
      assessEvidence([
        code,
        summary('North has the highest units, and West the lowest.')
      ])
    ).toEqual({ ok: true });
    expect(
      assessEvidence([
        code,
        summary(
          'East has the highest revenue, followed by North and South, and West has the lowest revenue.'
        )
      ])
    ).toEqual({
      ok: false,
      reason:
        'the summary says “East has the highest revenue”, which the printed tables do not show ' +
        '(North 408, East 297)'
    });
  });
});

describe('a request that asks for a plot', () => {
  it('is verified only when a cell shows an image', () => {
    const text = cell({ source: 'print(6)', outputs: stdout('6\n') });
    const image = cell({
      id: 'p',
      source: 'df.plot()',
      outputs: [
        {
          type: 'display_data',
          data: { 'image/png': 'iVBOR…', 'text/plain': '<Figure>' },
          metadata: {}
        }
      ]
    });
    expect(assessEvidence([text], 'Plot revenue by month')).toEqual({
      ok: false,
      reason: 'the request asks for a plot, and no cell shows one'
    });
    expect(assessEvidence([text, image], 'Plot revenue by month')).toEqual({
      ok: true
    });
    expect(assessEvidence([text], 'Total revenue by month')).toEqual({
      ok: true
    });
  });
});

describe('Generate notebook says "Built, not verified" when the work is not in it', () => {
  it('a notebook whose only code is a placeholder runs, but is not verified', async () => {
    const notebook = new MiniKernelNotebook({
      cells: [{ id: 'empty', source: '' }]
    });
    const model = new ScriptedModel([
      call('insert_cell', { cell_type: 'markdown', source: '# Analysis' }),
      call('insert_cell', { source: '# Your code goes here' }),
      call('run_cell', { cell_id: 'cell-2' }),
      { text: 'Done.' }
    ]);
    const s = session();
    const result = await s.generate('Analyse sales', {
      model: () => model,
      notebook
    });
    expect(result?.status).toBe('unverified');
    expect(result?.verification?.ok).toBe(true);
    expect(result?.reason).toContain('no code cell does any work');
    expect(notices(s)).toContain(
      'Built, not verified: no code cell does any work (they are empty or hold only comments, pass or placeholders).'
    );
    expect(notices(s).some(n => n.startsWith('Verified'))).toBe(false);
  });

  it('a model that never called a tool leaves one empty cell: not verified', async () => {
    const notebook = new MiniKernelNotebook({
      cells: [{ id: 'empty', source: '' }]
    });
    const model = new ScriptedModel([{ text: 'Here is your notebook.' }]);
    const s = session();
    const result = await s.generate('Analyse sales', {
      model: () => model,
      notebook
    });
    expect(result?.status).toBe('unverified');
    expect(notices(s).pop()).toMatch(/^Built, not verified: no code cell/);
  });

  it('a summary quoting a number no cell printed is not verified; quoting the output is', async () => {
    const build = (summary: string) =>
      new ScriptedModel([
        call('insert_cell', { source: 'total = 6\nprint(total)' }),
        call('run_cell', { cell_id: 'cell-1' }),
        call('insert_cell', {
          cell_type: 'markdown',
          source: `## Summary\n${summary}`
        }),
        { text: 'Done.' }
      ]);
    const wrong = session();
    const wrongNotebook = new MiniKernelNotebook();
    const bad = await wrong.generate('Sum', {
      model: () => build('The total is 6, up 14.2% on last year.'),
      notebook: wrongNotebook
    });
    expect(bad?.status).toBe('unverified');
    expect(notices(wrong).pop()).toBe(
      'Built, not verified: the summary states 14.2%, which no output of the notebook shows.'
    );
    // The summary cell says so under it.
    expect(wrongNotebook.cells.at(-1)?.source).toBe(
      '## Summary\nThe total is 6, up 14.2% on last year.\n\n' +
        '**Not verified:** the summary states 14.2%, which no output of the notebook shows.'
    );
    const right = await session().generate('Sum', {
      model: () => build('The total is 6.0.'),
      notebook: new MiniKernelNotebook()
    });
    expect(right?.status).toBe('verified');
  });
});

describe('an answer that states numbers nothing computed is marked', () => {
  const answer = (s: AgentSession) => {
    const items = s.getSnapshot().items;
    return items[items.length - 1];
  };

  it('marks the numbers of an answer from a turn that ran no code', async () => {
    const s = session();
    const notebook = new MiniKernelNotebook();
    await s.send('What is the average order value?', {
      model: () =>
        new ScriptedModel([{ text: 'The average order is 42.75 EUR.' }]),
      notebook
    });
    expect(answer(s)).toMatchObject({
      kind: 'assistant',
      notComputed: ['42.75']
    });
    // The mark is saved with the chat.
    expect(JSON.stringify(s.record().entries)).toContain('"notComputed"');
  });

  it('does not mark an answer whose turn ran code, or whose numbers an observation or the prompt shows', async () => {
    const ran = session();
    await ran.send('Average?', {
      model: () =>
        new ScriptedModel([
          call('run_code', { code: 'x = 3' }),
          { text: 'The average is 42.75.' }
        ]),
      notebook: new MiniKernelNotebook()
    });
    expect(answer(ran)).not.toHaveProperty('notComputed');

    const read = session();
    await read.send('Average of 42.75 and 17?', {
      model: () =>
        new ScriptedModel([
          call('read_notebook', {}),
          { text: 'Cell a shows 1234.5; your 42.75 and 17 average 29.875.' }
        ]),
      notebook: new MiniKernelNotebook({
        cells: [
          {
            id: 'a',
            source: 'print(t)',
            executionCount: 1,
            outputs: stdout('1234.5\n')
          }
        ]
      })
    });
    // 29.875 was computed by nobody: only it is marked.
    expect(answer(read)).toMatchObject({ notComputed: ['29.875'] });
  });

  it('marks numbers that only code typing them in printed, not computed ones', async () => {
    const typed = session();
    await typed.send('Average order value in sales.csv?', {
      model: () =>
        new ScriptedModel([
          call('run_code', { code: 'average = 42.75\nprint(average)' }),
          { text: 'The average order is 42.75.' }
        ]),
      notebook: new MiniKernelNotebook()
    });
    expect(answer(typed)).toMatchObject({ notComputed: ['42.75'] });

    const computed = session();
    await computed.send('Average order value in sales.csv?', {
      model: () =>
        new ScriptedModel([
          call('run_code', {
            code: "print(pd.read_csv('sales.csv').value.mean().round(2))"
          }),
          { text: 'The average order is 42.75.' }
        ]),
      notebook: new FakeNotebook({ execute: () => stdout('42.75\n') })
    });
    expect(answer(computed)).not.toHaveProperty('notComputed');
  });

  it('marks a small model’s answer of any form that only failed runs preceded, once the repairs are spent', async () => {
    const small = new AgentSession({
      tools: new ToolRegistry(agentTools()),
      approvalMode: () => 'run-everything',
      profile: () => 'small'
    });
    const failing = (code: string) => call('run_code', { code });
    await small.send('Which region of sales.csv sold most?', {
      model: () =>
        new ScriptedModel([
          failing('print(df.regoin)'),
          { text: 'ANSWER: North' },
          failing('print(df.regoin.mode())'),
          { text: 'ANSWER: North' },
          failing('print(df.regoin.value_counts())'),
          { text: 'ANSWER: North' }
        ]),
      notebook: new FakeNotebook({
        files: { 'sales.csv': 'region,units\nNorth,3\n' },
        execute: code => [
          {
            type: 'error',
            ename: 'AttributeError',
            evalue: code,
            traceback: []
          }
        ]
      })
    });
    expect(answer(small)).toMatchObject({
      kind: 'assistant',
      notComputed: ['North']
    });
  });

  it('folds away a small model’s guess that was sent back, and shows the computed answer as the answer', async () => {
    const small = new AgentSession({
      tools: new ToolRegistry(agentTools()),
      approvalMode: () => 'run-everything',
      profile: () => 'small'
    });
    await small.send('How many rows does the table have?', {
      model: () =>
        new ScriptedModel([
          { text: 'There are 37 rows.' },
          call('run_code', { code: 'print(len(df))' }),
          { text: 'There are 42 rows.' }
        ]),
      notebook: new FakeNotebook({ execute: () => stdout('42\n') })
    });
    const items = small.getSnapshot().items;
    const answers = items.filter(item => item.kind === 'assistant');
    expect(answers).toEqual([
      expect.objectContaining({ text: 'There are 37 rows.', guess: true }),
      expect.objectContaining({ text: 'There are 42 rows.' })
    ]);
    expect(answers[1]).not.toHaveProperty('guess');
    const repair = items.findIndex(
      item => item.kind === 'notice' && item.text === COMPUTE_REPAIR_NOTICE
    );
    expect(repair).toBeGreaterThan(items.indexOf(answers[0]));
    // The mark is the saved message's: a reopened chat folds the guess away too.
    expect(transcriptOf(small.record().entries ?? [])).toEqual(items);
  });
});
