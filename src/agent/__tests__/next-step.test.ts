/**
 * The loop's decisions (loop/next-step.ts), without a model: how a request
 * is shaped, what becomes of an answer, what follows a refused repeat.
 */
import {
  afterAnswer,
  afterRefusal,
  COMPUTE_REPAIR_NOTICE,
  FORM_REPAIR_NOTICE,
  FRESH_MEMORY,
  lastOutput,
  shapeRequest
} from '../loop/next-step';
import { MAX_COMPUTE_REPAIRS } from '../loop/compute-check';
import { runAgent } from '../loop/run-agent';
import { arrayConversation } from '../loop/conversation';
import { runConfig } from '../loop/run-config';
import { FakeNotebook } from '../testing/fake-notebook';
import { ScriptedModel } from '../testing/scripted-model';
import * as lenientJson from '../tools/lenient-json';
import { agentTools } from '../tools/all-tools';
import { ToolRegistry } from '../tools/registry';
import type { ChatMessage } from '../types';

const SMALL = { protocol: 'text' as const };
const ASK =
  'How many orders are in sales.csv? Finish with one line `ANSWER: <value>`.';
const tools = new ToolRegistry(agentTools());
const runsCode = (call: { name: string; arguments: string }) =>
  tools.runsCode(call);

const ran = (source: string, output: string): ChatMessage[] => [
  {
    role: 'assistant',
    content: null,
    toolCalls: [
      {
        id: 'c1',
        name: 'insert_cell',
        arguments: JSON.stringify({ source, run: true })
      }
    ]
  },
  {
    role: 'tool',
    toolCallId: 'c1',
    content: `cell_id: c1 finished OK (execution count 1, took 0.1 s).\nOutput:\n${output}`
  }
];

describe('shapeRequest', () => {
  it('sends a plain request, and spends the one-shot flags', () => {
    expect(shapeRequest(FRESH_MEMORY, SMALL, ASK).shape).toEqual({
      forceCall: false,
      sampled: false
    });
    const memory = {
      ...FRESH_MEMORY,
      mustRunCode: true,
      explore: true,
      answerNext: true
    };
    const next = shapeRequest(memory, SMALL, ASK);
    expect(next.memory).toEqual(FRESH_MEMORY);
  });

  it('requires code after a guess, unless told not to', () => {
    const memory = { ...FRESH_MEMORY, mustRunCode: true };
    expect(shapeRequest(memory, SMALL, ASK).shape.forceCall).toBe(true);
    expect(
      shapeRequest(memory, { ...SMALL, forceFirstCall: false }, ASK).shape
        .forceCall
    ).toBe(false);
  });

  it('after a refused repeat: begins with the asked answer line when the step had printed output, else samples', () => {
    const printed = { ...FRESH_MEMORY, explore: true, answerNext: true };
    expect(shapeRequest(printed, SMALL, ASK).shape).toEqual({
      forceCall: false,
      sampled: false,
      prefill: 'ANSWER:'
    });
    // No form asked: sampled instead.
    expect(
      shapeRequest(printed, SMALL, 'How many orders?').shape
    ).toMatchObject({ sampled: true });
    const failed = { ...FRESH_MEMORY, explore: true };
    expect(shapeRequest(failed, SMALL, ASK).shape.sampled).toBe(true);
    // Only the small profile samples.
    expect(shapeRequest(failed, undefined, ASK).shape.sampled).toBe(false);
  });
});

describe('afterAnswer', () => {
  const conversation = (...rest: ChatMessage[]): ChatMessage[] => [
    { role: 'system', content: 's' },
    { role: 'user', content: ASK },
    ...rest
  ];
  const input = (messages: ChatMessage[]) => ({
    messages,
    prompt: 1,
    runsCode,
    asksData: true,
    computeFirst: SMALL
  });

  it('sends a guess back as a guess, counting the repair and requiring code', () => {
    const step = afterAnswer(
      FRESH_MEMORY,
      input(conversation({ role: 'assistant', content: 'ANSWER: 2000' }))
    );
    expect(step).toMatchObject({
      kind: 'send-back',
      notice: COMPUTE_REPAIR_NOTICE,
      guess: true,
      memory: { repairs: 1, mustRunCode: true }
    });
  });

  it('sends a computed answer without the asked line back once for it', () => {
    const answered = conversation(...ran('print(len(df))', '2000'), {
      role: 'assistant',
      content: 'There are 2000 orders.'
    });
    const step = afterAnswer(FRESH_MEMORY, input(answered));
    expect(step).toMatchObject({
      kind: 'send-back',
      notice: FORM_REPAIR_NOTICE,
      guess: false,
      memory: { formAsked: true, repairs: 0 }
    });
    expect(
      afterAnswer({ ...FRESH_MEMORY, formAsked: true }, input(answered))
    ).toEqual({ kind: 'check-running' });
  });

  it('lets an answer stand after the repairs are spent, and for the standard profile', () => {
    const guess = conversation({ role: 'assistant', content: 'ANSWER: 2000' });
    expect(
      afterAnswer(
        { ...FRESH_MEMORY, repairs: MAX_COMPUTE_REPAIRS, formAsked: true },
        input(guess)
      )
    ).toEqual({ kind: 'check-running' });
    expect(
      afterAnswer(FRESH_MEMORY, { ...input(guess), computeFirst: undefined })
    ).toEqual({ kind: 'check-running' });
  });
});

describe('afterRefusal and lastOutput', () => {
  it('begins the next reply with the answer line only when the refused step had printed output (small profile)', () => {
    const printed = ran('print(len(df))', '2000')[1].content;
    expect(afterRefusal(FRESH_MEMORY, printed, SMALL)).toMatchObject({
      explore: true,
      answerNext: true
    });
    const failed =
      'cell_id: c1 raised an error (execution count 1).\nOutput:\nNameError: x';
    expect(afterRefusal(FRESH_MEMORY, failed, SMALL).answerNext).toBe(false);
    const silent = 'cell_id: c1 finished OK.\nOutput:\n(no output)';
    expect(afterRefusal(FRESH_MEMORY, silent, SMALL).answerNext).toBe(false);
    expect(afterRefusal(FRESH_MEMORY, printed, undefined)).toMatchObject({
      explore: true,
      answerNext: false
    });
  });

  it('finds the last output of this request, refusals skipped', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: ASK },
      ...ran('print(1)', '1'),
      { role: 'tool', toolCallId: 'c2', content: 'Not run: a repeat.' }
    ];
    expect(lastOutput(messages)).toContain('Output:\n1');
    expect(lastOutput([...messages, { role: 'user', content: 'Next?' }])).toBe(
      null
    );
  });
});

describe('the registry answers by property', () => {
  it('offers a tool that waits for cells among the agent tools, not among none', () => {
    expect(tools.offers(tool => !!tool.waitsForCells)).toBe(true);
    expect(new ToolRegistry([]).offers(tool => !!tool.waitsForCells)).toBe(
      false
    );
  });
});

describe('a call’s arguments', () => {
  it('are parsed once through a run: title, kind, repeat check, approval and execution read one parse', async () => {
    const spy = jest.spyOn(lenientJson, 'parseLenientJson');
    const model = new ScriptedModel([
      {
        toolCalls: [
          {
            name: 'insert_cell',
            arguments: { source: 'print(6 * 7)', run: true }
          }
        ]
      },
      { text: 'It printed 42.' }
    ]);
    const outcome = await runAgent(
      runConfig({ model, tools: new ToolRegistry(agentTools()) }),
      {
        notebook: new FakeNotebook({
          execute: () => [{ type: 'stream', name: 'stdout', text: '42\n' }]
        }),
        conversation: arrayConversation([
          { role: 'system', content: 's' },
          { role: 'user', content: 'Six times seven?' }
        ]),
        signal: new AbortController().signal,
        onEvent: () => undefined
      }
    );
    expect(outcome.reason).toBe('completed');
    const parses = spy.mock.calls.filter(([text]) =>
      String(text).includes('print(6 * 7)')
    );
    expect(parses).toHaveLength(1);
    spy.mockRestore();
  });
});
