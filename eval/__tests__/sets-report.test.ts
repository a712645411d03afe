/**
 * Several runs of a set merged as the Q&A set's are: a task (and each
 * question of a session) succeeds when it did in most runs; times are
 * medians; the report shows how many runs each passed.
 */
import {
  fixMarkdown,
  followupMarkdown,
  followupSummary,
  mergeRuns
} from '../src/sets/report';
import type { IFixRow, IFollowupRow, IQuestionRow } from '../src/sets/types';

const base = {
  detail: '',
  end: 'completed',
  modelCalls: 2,
  cellsRun: 1,
  promptTokens: 10,
  completionTokens: 5,
  tokensEstimated: false
};

const question = (
  position: number,
  success: boolean,
  wallS: number
): IQuestionRow => ({
  ...base,
  id: `s#${position}`,
  position,
  success,
  wallS,
  answer: '',
  notComputed: []
});

const session = (q1: boolean, q2: boolean, wallS: number): IFollowupRow => ({
  ...base,
  id: 's',
  category: 'aggregation',
  success: q1 && q2,
  wallS,
  questions: [question(1, q1, wallS / 2), question(2, q2, wallS / 2)]
});

const info = {
  set: 'x',
  model: 'm',
  label: 'm',
  agent: 'small profile, text protocol',
  concurrency: 1,
  timeoutS: 300,
  maxSteps: 10,
  startedAt: 'now',
  wallS: 1
};

describe('merging runs', () => {
  it('counts a question that succeeded in most runs; medians of times', () => {
    const merged = mergeRuns([
      [session(true, false, 10)],
      [session(true, true, 30)],
      [session(false, false, 20)]
    ]);
    expect(merged[0]).toMatchObject({
      passes: 1,
      runs: 3,
      success: false,
      wallS: 20
    });
    expect(
      merged[0].questions.map(q => [
        q.success,
        (q as unknown as { passes: number }).passes
      ])
    ).toEqual([
      [true, 2],
      [false, 1]
    ]);
    expect(followupSummary(merged)).toMatchObject({
      questions: 2,
      succeeded: 1
    });
    const markdown = followupMarkdown(
      { ...info, kind: 'followup' },
      merged,
      [1, 2, 0]
    );
    expect(markdown).toMatch(/median of 3 runs/);
    expect(markdown).toMatch(/per run: 1, 2, 0 questions/);
    expect(markdown).toMatch(/\| s \| aggregation \| ✅ 2\/3 \| ❌ 1\/3 \|/);
  });

  it('a fix: booleans by majority, the runs passed shown', () => {
    const fix = (success: boolean): IFixRow => ({
      ...base,
      id: 'f',
      category: 'merge key',
      success,
      wallS: 5,
      status: success ? 'fixed' : 'not-fixed',
      attempts: 1,
      turnsWithoutEdit: 0,
      inPlace: success,
      runsClean: success,
      checkPassed: success,
      reviewShown: true,
      cellsAdded: success ? 0 : 1,
      otherCellsChanged: 0,
      failedBefore: true
    });
    const merged = mergeRuns([[fix(true)], [fix(false)], [fix(true)]]);
    expect(merged[0]).toMatchObject({
      success: true,
      inPlace: true,
      passes: 2,
      runs: 3,
      status: 'fixed | not-fixed | fixed',
      cellsAdded: 0
    });
    expect(fixMarkdown({ ...info, kind: 'fix' }, merged, [1, 0, 1])).toMatch(
      /\| f \| merge key \| 2\/3 \| ✅ \|/
    );
  });
});
