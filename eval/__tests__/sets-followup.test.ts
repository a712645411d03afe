/**
 * The follow-up set's runner and judge end to end: one notebook, one chat
 * (the product's AgentSession, `send` per question), a real kernel, the
 * scripted model. Each question is judged right after its turn; the
 * report gives the rate by position in the session.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  startScriptedServer,
  type IScriptedServer
} from '../../src/agent/__tests__/fixtures/scripted-server';
import { questionPrompt } from '../src/sets/followup';
import { followupMarkdown, followupSummary } from '../src/sets/report';
import { runSessionSet } from '../src/sets/run-set';
import type { SessionSet } from '../src/sets/types';

let model: IScriptedServer;
let dir: string;

beforeAll(async () => {
  jest.spyOn(console, 'debug').mockImplementation(() => undefined);
  jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  model = await startScriptedServer();
  dir = await mkdtemp(join(tmpdir(), 'eval-followup-'));
  await writeFile(join(dir, 'data.csv'), 'a,b\n1,x\n2,y\n3,z\n');
});

afterAll(async () => {
  model?.stop();
  await rm(dir, { recursive: true, force: true });
});

/** A 1×1 PNG shown in the notebook: a plot, without matplotlib. */
const SHOW_IMAGE =
  'import base64\nfrom IPython.display import Image, display\n' +
  "display(Image(data=base64.b64decode('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==')))";

const run = (source: string) => ({
  tool_calls: [{ name: 'insert_cell', arguments: { source, run: true } }]
});

describe('the follow-up set', () => {
  it('asks the questions in one chat and judges each; rates by position', async () => {
    const set: SessionSet = {
      kind: 'followup',
      name: 'tiny-followup',
      dataDir: dir,
      expected: { total: 6, above: 1 },
      tasks: [
        {
          id: 'sum-then',
          category: 'aggregation',
          files: ['data.csv'],
          questions: [
            {
              prompt: 'What is the sum of column a in data.csv?',
              checker: { type: 'answer', expected_key: 'total', tolerance: 0 },
              solution: ''
            },
            {
              prompt: 'How many of those values are above 2?',
              checker: { type: 'answer', expected_key: 'above', tolerance: 0 },
              solution: ''
            },
            {
              prompt: 'Plot it.',
              checker: { type: 'image', min: 1 },
              solution: ''
            },
            {
              prompt: 'Plot it again, as a bar chart.',
              checker: { type: 'image', min: 1 },
              solution: ''
            }
          ]
        }
      ]
    };
    await model.script([
      // 1st: computed in a cell, right.
      run(
        "import pandas as pd\ndf = pd.read_csv('data.csv')\ntotal = int(df['a'].sum())\nprint(total)"
      ),
      { content: 'The sum is 6.\n\nANSWER: 6' },
      // 2nd: from memory, wrong (and marked: no code ran).
      { content: 'There are 1234 of them.\n\nANSWER: 1234' },
      // 3rd: a new plot.
      run(SHOW_IMAGE),
      { content: 'Here is the plot.' },
      // 4th: says so, runs nothing: the earlier plot does not count.
      { content: 'Here it is as a bar chart.' }
    ]);
    const [row] = await runSessionSet(set, {
      endpoint: {
        baseUrl: `${model.root}/v1`,
        model: 'scripted-model',
        apiKey: 'unused'
      },
      concurrency: 1,
      timeoutS: 60,
      notebooksDir: join(dir, 'out', 'notebooks')
    });
    expect(row.error).toBeUndefined();
    expect(row.questions.map(q => [q.position, q.success])).toEqual([
      [1, true],
      [2, false],
      [3, true],
      [4, false]
    ]);
    expect(row.success).toBe(false);
    const [first, second, third, fourth] = row.questions;
    expect(first).toMatchObject({
      modelCalls: 2,
      cellsRun: 1,
      end: 'completed'
    });
    expect(first.detail).toMatch(/answer 6 = expected 6/);
    expect(second).toMatchObject({ modelCalls: 1, cellsRun: 0 });
    expect(second.detail).toMatch(/answer 1234 ≠ expected 1/);
    expect(second.notComputed).toEqual(['1234']);
    expect(third.detail).toMatch(/1 image output/);
    expect(fourth.detail).toMatch(/0 image output/);
    // One chat: the 2nd question's request carried the 1st's turns.
    const requests = await model.received<{
      body: { messages: Array<{ role: string; content: unknown }> };
    }>();
    const secondAsk = requests[2].body.messages;
    expect(JSON.stringify(secondAsk)).toContain('What is the sum of column a');
    expect(JSON.stringify(secondAsk)).toContain('How many of those values');
    // The notebook: one file, the cells of both questions that ran code.
    const saved = JSON.parse(
      await readFile(join(dir, 'out', 'notebooks', 'sum-then.ipynb'), 'utf8')
    ) as { cells: unknown[] };
    expect(saved.cells).toHaveLength(2);

    const summary = followupSummary([row]);
    expect(summary).toMatchObject({
      questions: 4,
      succeeded: 2,
      sessionsAllRight: 0,
      notComputed: 1
    });
    const markdown = followupMarkdown(
      {
        set: 'tiny-followup',
        kind: 'followup',
        model: 'scripted-model',
        label: 'scripted',
        agent: 'standard profile, native protocol',
        concurrency: 1,
        timeoutS: 60,
        maxSteps: 20,
        startedAt: 'now',
        wallS: 1
      },
      [row],
      [2]
    );
    expect(markdown).toMatch(/\*\*Questions: 2\/4 \(50 %\)\*\*/);
    expect(markdown).toMatch(/\| 1st \| 1 \| 1 \| 100 % \|/);
    expect(markdown).toMatch(/\| 2nd \| 1 \| 0 \| 0 % \|/);
    expect(markdown).toMatch(
      /\| sum-then \| aggregation \| ✅ \| ❌ ⚠ \| ✅ \| ❌ \|/
    );
    expect(markdown).toMatch(/1st 1\/1 · 2nd 0\/1 · 3rd 1\/1 · 4th 0\/1/);
  }, 180_000);

  it('stops a question at its timeout, as Stop would, and asks the next one', async () => {
    await model.script([
      {
        content: 'Thinking about it for a long time…',
        stall: 30,
        stall_after: 1
      },
      { content: 'ANSWER: 6' }
    ]);
    const [row] = await runSessionSet(
      {
        kind: 'followup',
        name: 'slow',
        dataDir: dir,
        expected: { total: 6 },
        tasks: [
          {
            id: 'slow',
            files: ['data.csv'],
            questions: [1, 2].map(() => ({
              prompt: 'What is the sum of column a in data.csv?',
              checker: { type: 'answer' as const, expected_key: 'total' },
              solution: ''
            }))
          }
        ]
      },
      {
        endpoint: {
          baseUrl: `${model.root}/v1`,
          model: 'scripted-model',
          apiKey: 'unused'
        },
        concurrency: 1,
        timeoutS: 3
      }
    );
    expect(row.questions.map(q => [q.end, q.success])).toEqual([
      ['timeout', false],
      ['completed', true]
    ]);
    // The first question ended at its 3 s timeout, not when the model's 30 s
    // stall ran out (the set's start-up, a kernel's, is not counted: it
    // took 4 s on one machine and 20 s on a slower one).
    expect(row.questions[0].wallS).toBeLessThan(20);
  }, 90_000);

  it('asks for the answer line only where the answer is checked', () => {
    expect(
      questionPrompt({
        prompt: ' Which region? ',
        checker: { type: 'answer', expected: 'North' },
        solution: ''
      })
    ).toBe(
      'Which region?\n\nFinish your final message with one line `ANSWER: <value>` holding only the value.'
    );
    expect(
      questionPrompt({
        prompt: 'Plot it.',
        checker: { type: 'image' },
        solution: ''
      })
    ).toBe('Plot it.');
  });
});
