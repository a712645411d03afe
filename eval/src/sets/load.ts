/**
 * Loading the follow-up, Fix and Generate sets: a JSON file with a `kind`,
 * its generator run into the data folder, every task checked, the set's
 * `defaults` (limits) given to the tasks that do not set their own.
 */
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { generate } from '../load';
import { validateTask, type Checker } from '../task';
import type {
  IFixTask,
  IFollowupTask,
  IGenerateTask,
  ITaskLimits,
  SessionSet,
  SetKind
} from './types';

/** The set files of each kind, in eval/tasks/ (`--set KIND [--holdout]`). */
export function setFile(kind: SetKind, holdout: boolean): string {
  const tasks = join(__dirname, '..', '..', 'tasks');
  if (kind === 'qa') {
    return join(tasks, holdout ? 'holdout.json' : 'builtin.json');
  }
  return join(tasks, `${kind}${holdout ? '-holdout' : ''}.json`);
}

/** The kind a set file declares (`"kind"`; none, or a .jsonl file: Q&A). */
export async function setKindOf(file: string): Promise<SetKind> {
  if (file.endsWith('.jsonl')) {
    return 'qa';
  }
  const raw = JSON.parse(await readFile(file, 'utf8')) as { kind?: unknown };
  const kind = raw.kind ?? 'qa';
  if (!isSetKind(kind)) {
    throw new Error(
      `${file}: "kind" must be qa, followup, fix or generate (not ${JSON.stringify(kind)})`
    );
  }
  return kind;
}

/** Whether `value` names a set kind. */
export function isSetKind(value: unknown): value is SetKind {
  return (
    value === 'qa' ||
    value === 'followup' ||
    value === 'fix' ||
    value === 'generate'
  );
}

/** Load a follow-up, Fix or Generate set; `dataDir`: where the generator writes (default a temporary folder). */
export async function loadSessionSet(
  file: string,
  options: { dataDir?: string; python?: string } = {}
): Promise<SessionSet> {
  const path = resolve(file);
  const raw = JSON.parse(await readFile(path, 'utf8')) as {
    name?: string;
    kind?: unknown;
    description?: string;
    generator?: string;
    data_dir?: string;
    defaults?: ITaskLimits;
    tasks?: unknown[];
  };
  const kind = raw.kind;
  if (kind !== 'followup' && kind !== 'fix' && kind !== 'generate') {
    throw new Error(`${file}: "kind" must be followup, fix or generate`);
  }
  if (!Array.isArray(raw.tasks) || !raw.tasks.length) {
    throw new Error(`${file}: a set needs a non-empty "tasks" list`);
  }
  const defaults = raw.defaults ?? {};
  const tasks = raw.tasks.map((task, i) => ({
    ...defaults,
    ...validate(kind, task, `${file} task ${i}`)
  }));
  const seen = new Set<string>();
  for (const task of tasks) {
    if (seen.has(task.id)) {
      throw new Error(`${file}: duplicate task id ${task.id}`);
    }
    seen.add(task.id);
  }
  let dataDir: string;
  let expected: Record<string, unknown> = {};
  if (raw.generator) {
    dataDir = resolve(
      options.dataDir ??
        (await mkdtemp(join(tmpdir(), 'notebook-agent-eval-sets-')))
    );
    expected = await generate(
      resolve(dirname(path), raw.generator),
      dataDir,
      options.python
    );
  } else {
    dataDir = resolve(
      options.dataDir ?? resolve(dirname(path), raw.data_dir ?? '.')
    );
  }
  const name =
    raw.name ??
    path
      .split('/')
      .pop()!
      .replace(/\.json$/, '');
  const common = { name, description: raw.description, dataDir, expected };
  switch (kind) {
    case 'followup':
      return { kind, tasks: tasks as IFollowupTask[], ...common };
    case 'fix':
      return { kind, tasks: tasks as IFixTask[], ...common };
    case 'generate':
      return { kind, tasks: tasks as IGenerateTask[], ...common };
  }
}

/** The expected-value keys a checker names (nested ones too). */
export function checkerKeys(checker: Checker): string[] {
  return [
    ...('expected_key' in checker && checker.expected_key
      ? [checker.expected_key]
      : []),
    ...(checker.type === 'all' ? checker.checks.flatMap(checkerKeys) : [])
  ];
}

/** Every expected-value key a task names. */
export function taskKeys(
  task: IFollowupTask | IFixTask | IGenerateTask
): string[] {
  if ('questions' in task) {
    return task.questions.flatMap(q => checkerKeys(q.checker));
  }
  if ('cells' in task) {
    return checkerKeys(task.checker);
  }
  return (task.values ?? []).map(v => v.expected_key);
}

function validate(
  kind: 'followup' | 'fix' | 'generate',
  value: unknown,
  where: string
): IFollowupTask | IFixTask | IGenerateTask {
  const task = value as Record<string, unknown>;
  const fail = (why: string): never => {
    throw new Error(`${where}: ${why}`);
  };
  if (!task || typeof task !== 'object') {
    fail('a task must be an object');
  }
  if (typeof task.id !== 'string' || !/^[A-Za-z0-9_.-]+$/.test(task.id)) {
    fail('`id` must be a string of letters, digits, _ . -');
  }
  const files = task.files ?? [];
  if (!Array.isArray(files) || !files.every(f => typeof f === 'string')) {
    fail('`files` must be a list of paths');
  }
  // The checkers are the Q&A set's (task.ts): validated the same way.
  const check = (checker: unknown, at: string) =>
    validateTask(
      { id: task.id, prompt: 'unused', checker },
      `${where} (${String(task.id)}) ${at}`
    );
  switch (kind) {
    case 'followup': {
      const questions = task.questions;
      if (!Array.isArray(questions) || !questions.length) {
        fail('a follow-up session needs a non-empty `questions` list');
      }
      (questions as Array<Record<string, unknown>>).forEach((q, i) => {
        if (typeof q?.prompt !== 'string' || !q.prompt.trim()) {
          fail(`question ${i + 1} needs a prompt`);
        }
        if (typeof q.solution !== 'string') {
          fail(`question ${i + 1} needs a reference solution`);
        }
        check(q.checker, `question ${i + 1}`);
      });
      return task as unknown as IFollowupTask;
    }
    case 'fix': {
      const cells = task.cells;
      if (
        !Array.isArray(cells) ||
        !cells.length ||
        !cells.every(c => typeof c === 'string')
      ) {
        fail('a fix task needs `cells`, a list of sources');
      }
      const target = task.target ?? (cells as string[]).length - 1;
      if (
        typeof target !== 'number' ||
        !Number.isInteger(target) ||
        target < 0 ||
        target >= (cells as string[]).length
      ) {
        fail('`target` must be the index of one of `cells`');
      }
      if (typeof task.solution !== 'string' || !task.solution.trim()) {
        fail('a fix task needs a reference `solution`');
      }
      const asked = task.asked_before;
      if (
        asked !== undefined &&
        (!Array.isArray(asked) ||
          !asked.every(p => typeof p === 'string' && p.trim()))
      ) {
        fail('`asked_before` must be a list of prompts');
      }
      check(task.checker, 'checker');
      return task as unknown as IFixTask;
    }
    case 'generate': {
      if (typeof task.request !== 'string' || !task.request.trim()) {
        fail('a generate task needs a `request`');
      }
      if (!(files as string[]).length) {
        fail('a generate task names at least one file');
      }
      for (const file of files as string[]) {
        if (!(task.request as string).includes(file.split('/').pop()!)) {
          fail(`the request must name ${file}`);
        }
      }
      const values = task.values ?? [];
      if (
        !Array.isArray(values) ||
        !values.every(
          v => v && typeof (v as IGenerateValue).expected_key === 'string'
        )
      ) {
        fail(
          '`values` must be a list of {expected_key, relative?, tolerance?}'
        );
      }
      return task as unknown as IGenerateTask;
    }
  }
}

type IGenerateValue = { expected_key?: unknown };
