/**
 * The loop's step choices (loop/steps.ts), each without a model, a
 * notebook or a clock.
 */
import { callStep, type ICallRun } from '../loop/tool-step';
import type { IAssistantTurn } from '../model/accumulator';
import { FakeNotebook } from '../testing/fake-notebook';
import { agentTools } from '../tools/all-tools';
import { ToolRegistry, type ITool } from '../tools/registry';
import { FRESH_MEMORY } from '../loop/next-step';
import {
  afterCalls,
  afterRunningCheck,
  afterTurn,
  nextRound,
  NO_CODE_LIMIT
} from '../loop/steps';
import { REPEATED_STEP_MESSAGE } from '../loop/stop-conditions';
import type { ChatMessage, IRunningCell } from '../types';

const turn = (
  toolCalls: IAssistantTurn['toolCalls'],
  text = ''
): IAssistantTurn => ({ text, toolCalls, finishReason: 'stop' });

const call = { id: 'c1', name: 'run_cell', arguments: '{"cell_id":"a"}' };

const ran: ChatMessage[] = [
  { role: 'user', content: 'How many rows?' },
  { role: 'assistant', content: null, toolCalls: [call] },
  {
    role: 'tool',
    toolCallId: 'c1',
    content: 'Cell a finished OK.\nOutput:\n42'
  },
  { role: 'assistant', content: null, toolCalls: [call] }
];

describe('nextRound', () => {
  it('calls the model while steps are left and the run is not stopped', () => {
    expect(nextRound({ steps: 0, maxSteps: 3, aborted: false })).toEqual({
      kind: 'call-model'
    });
  });

  it('ends at the step limit before looking at Stop', () => {
    expect(nextRound({ steps: 3, maxSteps: 3, aborted: true })).toEqual({
      kind: 'stop',
      reason: 'step-limit'
    });
  });

  it('ends a stopped run', () => {
    expect(nextRound({ steps: 1, maxSteps: 3, aborted: true })).toEqual({
      kind: 'stop',
      reason: 'stopped'
    });
  });
});

describe('afterTurn', () => {
  const input = {
    messages: ran,
    memory: FRESH_MEMORY,
    computeFirst: undefined
  };

  it('checks an answer without calls', () => {
    expect(
      afterTurn({ ...input, turn: turn([], '42'), verdict: null })
    ).toEqual({ kind: 'answer' });
  });

  it('runs calls that are not a repeat', () => {
    expect(afterTurn({ ...input, turn: turn([call]), verdict: 'run' })).toEqual(
      { kind: 'run-calls', calls: [call] }
    );
  });

  it('refuses a repeat with what the step gave, and goes on sampled', () => {
    const next = afterTurn({ ...input, turn: turn([call]), verdict: 'skip' });
    expect(next).toMatchObject({
      kind: 'refuse-calls',
      calls: [call],
      stop: null,
      memory: { explore: true, answerNext: false }
    });
    expect(next.kind === 'refuse-calls' && next.refusal).toMatch(
      /^Not run: this code already ran, and its output was:\n42\n/
    );
  });

  it('begins a small model’s reply with the answer line after a repeat of a step with output', () => {
    const next = afterTurn({
      ...input,
      computeFirst: { protocol: 'native' },
      turn: turn([call]),
      verdict: 'skip'
    });
    expect(next).toMatchObject({ memory: { answerNext: true } });
  });

  it('refuses with the plain message when there is no earlier output', () => {
    const next = afterTurn({
      ...input,
      messages: [ran[0], ran[1]],
      turn: turn([call]),
      verdict: 'skip'
    });
    expect(next).toMatchObject({ refusal: REPEATED_STEP_MESSAGE });
  });

  it('refuses a block of comments only, as such even when it repeats, and ends on the third', () => {
    for (const verdict of ['run', 'skip', 'stop'] as const) {
      const next = afterTurn({
        ...input,
        turn: turn([call]),
        verdict,
        commentsOnly: true
      });
      expect(next).toMatchObject({
        kind: 'refuse-calls',
        stop: verdict === 'stop' ? 'no-code' : null,
        memory: { noCode: 1 }
      });
      expect(next.kind === 'refuse-calls' && next.refusal).toMatch(
        /^Not run: that block holds only comments, no code\. The last code's output was:\n42\n/
      );
    }
  });

  it('ends the run when the repeat keeps coming', () => {
    expect(
      afterTurn({ ...input, turn: turn([call]), verdict: 'stop' })
    ).toMatchObject({ kind: 'refuse-calls', stop: 'repeated-step' });
  });

  it('ends the run on the third block with no code, each one different', () => {
    let memory = FRESH_MEMORY;
    const stops: Array<string | null> = [];
    for (let i = 0; i < NO_CODE_LIMIT; i++) {
      const next = afterTurn({
        ...input,
        memory,
        turn: turn([call]),
        verdict: 'run', // a block not seen before
        commentsOnly: true
      });
      if (next.kind !== 'refuse-calls') {
        throw new Error(`refused, not ${next.kind}`);
      }
      stops.push(next.stop);
      memory = next.memory;
    }
    expect(stops).toEqual([null, null, 'no-code']);
    // A repeat of code is counted apart: it does not end a run sooner.
    expect(
      afterTurn({ ...input, memory, turn: turn([call]), verdict: 'skip' })
    ).toMatchObject({ stop: null });
  });
});

describe('afterRunningCheck', () => {
  const cells: IRunningCell[] = [{ id: 'a', label: '[3]' }];

  it('reminds the model once of cells left running', () => {
    expect(afterRunningCheck(cells, FRESH_MEMORY, false)).toEqual({
      kind: 'remind',
      cells,
      memory: { ...FRESH_MEMORY, reminded: true }
    });
    expect(
      afterRunningCheck(cells, { ...FRESH_MEMORY, reminded: true }, false)
    ).toEqual({ kind: 'stop', reason: 'completed' });
  });

  it('completes without cells running, or when stopped', () => {
    expect(afterRunningCheck([], FRESH_MEMORY, false)).toEqual({
      kind: 'stop',
      reason: 'completed'
    });
    expect(afterRunningCheck(cells, FRESH_MEMORY, true)).toEqual({
      kind: 'stop',
      reason: 'completed'
    });
  });
});

describe('afterCalls', () => {
  const round = { steps: 1, maxSteps: 3, aborted: false };

  it('ends on a repeated failure, naming it', () => {
    expect(afterCalls(true, 'NameError: x', round)).toEqual({
      kind: 'stop',
      reason: 'repeated-failure',
      detail: 'NameError: x'
    });
  });

  it('otherwise begins the next round', () => {
    expect(afterCalls(false, '', round)).toEqual({ kind: 'call-model' });
    expect(afterCalls(false, '', { ...round, steps: 3 })).toEqual({
      kind: 'stop',
      reason: 'step-limit'
    });
  });
});

describe('callStep', () => {
  const tools = new ToolRegistry(agentTools());
  const runCell = tools.get('run_cell') as ITool<unknown>;
  const readNotebook = tools.get('read_notebook') as ITool<unknown>;
  const run = (
    approvalMode: ICallRun['config']['approvalMode'],
    scope: ICallRun['turn']['scope'] = {}
  ): Pick<ICallRun, 'config' | 'turn'> => ({
    config: { tools, approvalMode },
    turn: {
      notebook: new FakeNotebook(),
      signal: new AbortController().signal,
      scope
    }
  });
  const args = { cell_id: 'a' };

  it('asks before code runs, by the mode', () => {
    expect(callStep(runCell, args, {}, run('ask-before-running'))).toEqual({
      kind: 'ask',
      toolKind: 'run'
    });
    expect(callStep(runCell, args, {}, run('run-everything'))).toEqual({
      kind: 'run'
    });
    expect(callStep(readNotebook, {}, {}, run('ask-before-edits'))).toEqual({
      kind: 'run'
    });
  });

  it('runs a call on a cell the user asked to fix without asking', () => {
    expect(
      callStep(
        runCell,
        args,
        {},
        run('ask-before-running', { approvedCells: new Set(['a']) })
      )
    ).toEqual({ kind: 'run' });
  });

  it('asks for the tools the turn always asks for, and for tools that always ask', () => {
    expect(
      callStep(
        readNotebook,
        {},
        {},
        run('run-everything', { alwaysAsk: tool => tool === readNotebook })
      )
    ).toEqual({ kind: 'ask', toolKind: 'read' });
    expect(
      callStep(
        { ...readNotebook, asksAlways: true },
        {},
        {},
        run('run-everything')
      )
    ).toEqual({ kind: 'ask', toolKind: 'read' });
  });

  it('refuses what the preview refuses, and asks with the kind the preview gives', () => {
    expect(
      callStep(runCell, args, { refused: 'no' }, run('run-everything'))
    ).toEqual({ kind: 'refuse', result: { ok: false, output: 'no' } });
    expect(
      callStep(readNotebook, {}, { kind: 'replace' }, run('run-everything'))
    ).toEqual({ kind: 'ask', toolKind: 'replace' });
  });
});
