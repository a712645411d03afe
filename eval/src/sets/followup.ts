/**
 * Follow-up sessions: the questions of a task asked in order with
 * `session.send`, in one notebook and one chat, as a user asks them in the
 * sidebar; each judged on its own (its answer, the kernel, a new plot)
 * right after its turn.
 */
import { join } from 'node:path';
import { runChecker } from '../checkers';
import { wantsAnswer } from '../task';
import type { IEvalServer } from '../eval-server';
import {
  TaskSession,
  emptyRow,
  finalMessage,
  type ISetRunOptions
} from './session';
import type {
  IFollowupRow,
  IFollowupTask,
  IQuestion,
  IQuestionRow,
  SessionSet
} from './types';

/** What the user types for a question: the question, and how to report the answer when it is checked. */
export function questionPrompt(question: IQuestion): string {
  return wantsAnswer(question.checker)
    ? `${question.prompt.trim()}\n\nFinish your final message with one line \`ANSWER: <value>\` holding only the value.`
    : question.prompt.trim();
}

/** Run one follow-up session. */
export async function runFollowup(
  set: Extract<SessionSet, { kind: 'followup' }>,
  task: IFollowupTask,
  server: IEvalServer,
  options: ISetRunOptions
): Promise<IFollowupRow> {
  const row: IFollowupRow = {
    ...emptyRow(task.id, task.category),
    questions: []
  };
  const started = Date.now();
  let run: TaskSession | null = null;
  try {
    run = await TaskSession.open(
      server,
      task.id,
      (task.files ?? []).map(file => join(set.dataDir, file)),
      { ...options, maxSteps: task.max_steps ?? options.maxSteps ?? 20 }
    );
    const start = run.mark();
    for (const [index, question] of task.questions.entries()) {
      row.questions.push(
        await ask(run, question, index + 1, task, set.expected, options)
      );
    }
    Object.assign(row, run.since(start));
  } catch (error) {
    row.error = error instanceof Error ? error.message : String(error);
  } finally {
    await run?.finish(options.notebooksDir, task.id);
  }
  const passed = row.questions.filter(q => q.success).length;
  row.success = !row.error && passed === task.questions.length && passed > 0;
  row.end = row.questions.map(q => q.end).join(', ') || 'error';
  row.detail = row.error
    ? `harness error: ${row.error}`
    : `${passed}/${task.questions.length} questions` +
      row.questions
        .filter(q => !q.success)
        .slice(0, 1)
        .map(q => `; Q${q.position}: ${q.detail}`)
        .join('');
  row.wallS = (Date.now() - started) / 1000;
  return row;
}

async function ask(
  run: TaskSession,
  question: IQuestion,
  position: number,
  task: IFollowupTask,
  expected: Record<string, unknown>,
  options: ISetRunOptions
): Promise<IQuestionRow> {
  const row: IQuestionRow = {
    ...emptyRow(`${task.id}#${position}`, task.category),
    position,
    answer: '',
    notComputed: []
  };
  const { session, port } = run;
  const ranSince = new Map(
    (await port.getCells()).map(cell => [cell.id, cell.executionCount])
  );
  const mark = run.mark();
  const turnStart = session.history.length;
  const items = session.getSnapshot().items.length;
  const { value, timedOut } = await run.bounded(
    task.timeout_s ?? options.timeoutS ?? 300,
    () => session.send(questionPrompt(question), run.target)
  );
  Object.assign(row, run.since(mark));
  row.end = timedOut
    ? 'timeout'
    : (value?.reason ?? (run.error ? 'error' : 'not-started'));
  if (run.error) {
    row.error = run.error;
  }
  row.answer = finalMessage(session, turnStart).slice(-2000);
  // The sidebar's "not computed in the notebook" mark on this turn's answer.
  const answered = session
    .getSnapshot()
    .items.slice(items)
    .filter(item => item.kind === 'assistant');
  const last = answered[answered.length - 1];
  row.notComputed =
    last?.kind === 'assistant' ? [...(last.notComputed ?? [])] : [];
  const verdict = await runChecker(question.checker, {
    finalText: row.answer,
    notebook: port,
    expected,
    ranSince
  });
  row.success = verdict.pass;
  row.detail = verdict.detail;
  return row;
}
