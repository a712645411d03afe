/**
 * The evaluation task format: what to ask, which files the notebook's
 * folder holds, and how to tell whether the agent succeeded.
 *
 * A task set is a JSON file (see eval/README.md):
 *   { "name": "...", "generator"?: "../data/generate.py", "data_dir"?: "...",
 *     "tasks": [ITask, ...] }
 * `generator` is a Python script run with `--out DIR` that writes the data
 * files and an `expected.json`; checkers may then name expected values by
 * key (`expected_key`) instead of spelling them out.
 */

/** A value the agent must report: a number (with tolerance) or a text. */
export type ExpectedValue = number | string;

/**
 * Compare the agent's reported answer with an expected value. The answer
 * is read from the final message: the last `ANSWER: <value>` line, or, for
 * named answers (DABench style), `@name[value]` tokens.
 */
export interface IAnswerCheck {
  type: 'answer';
  /** The value, or a map name → value for several named answers. */
  expected?: ExpectedValue | Record<string, ExpectedValue>;
  /** Look the expected value up in the generator's expected.json. */
  expected_key?: string;
  /** Absolute tolerance for numbers (default 1e-6 × max(1, |expected|)). */
  tolerance?: number;
  /** Relative tolerance for numbers, e.g. 0.01 for 1 %. */
  relative?: number;
}

/**
 * Python run in the final kernel (after the run, in the task's folder).
 * Passes when it raises nothing. `__answer__` holds the reported answer
 * text (or None) and `__expected__` the resolved expected value, if any.
 */
export interface IPythonCheck {
  type: 'python';
  code: string;
  expected_key?: string;
}

/** The notebook must show at least `min` images (plots) in its outputs. */
export interface IImageCheck {
  type: 'image';
  min?: number;
}

/** Every check must pass. */
export interface IAllCheck {
  type: 'all';
  checks: Checker[];
}

/** How a task is scored. */
export type Checker = IAnswerCheck | IPythonCheck | IImageCheck | IAllCheck;

/** One task. */
export interface ITask {
  /** Unique within its set; also the task's folder name on the server. */
  id: string;
  /** What the user asks. */
  prompt: string;
  /** Files copied into the notebook's folder (relative to the data dir). */
  files?: string[];
  /** Code cells already in the notebook (not run), e.g. a broken one to fix. */
  setup_cells?: string[];
  checker: Checker;
  /** A label for grouping results: aggregation, joins, … */
  category?: string;
  /** Overrides of the run's limits for this task. */
  max_steps?: number;
  timeout_s?: number;
}

/** A set of tasks and where their files come from. */
export interface ITaskSet {
  name: string;
  tasks: ITask[];
  /** Folder the task files are relative to (absolute once loaded). */
  dataDir?: string;
  /** Generator script (absolute once loaded); run to fill `dataDir`. */
  generator?: string;
  /** Expected values by key, from the generator's expected.json. */
  expected?: Record<string, unknown>;
}

/** Whether a checker (or one inside it) asks for an `ANSWER:` line. */
export function wantsAnswer(checker: Checker): boolean {
  switch (checker.type) {
    case 'answer':
      return true;
    case 'all':
      return checker.checks.some(wantsAnswer);
    default:
      return false;
  }
}

/** Named answers (`@name[value]`) rather than one `ANSWER:` line. */
export function answerNames(checker: Checker): string[] {
  if (checker.type === 'all') {
    return checker.checks.flatMap(answerNames);
  }
  if (
    checker.type === 'answer' &&
    checker.expected !== undefined &&
    typeof checker.expected === 'object'
  ) {
    return Object.keys(checker.expected);
  }
  return [];
}

/** Throw a readable error unless `value` is a well-formed task. */
export function validateTask(value: unknown, where: string): ITask {
  const task = value as Partial<ITask>;
  const fail = (why: string): never => {
    throw new Error(`${where}: ${why}`);
  };
  if (!task || typeof task !== 'object') {
    fail('a task must be an object');
  }
  if (typeof task.id !== 'string' || !/^[A-Za-z0-9_.-]+$/.test(task.id)) {
    fail('`id` must be a string of letters, digits, _ . -');
  }
  if (typeof task.prompt !== 'string' || !task.prompt.trim()) {
    fail('`prompt` must be a non-empty string');
  }
  if (task.files && !task.files.every(f => typeof f === 'string')) {
    fail('`files` must be a list of paths');
  }
  validateChecker(task.checker, `${where} (${task.id})`);
  return task as ITask;
}

function validateChecker(checker: unknown, where: string): void {
  const c = checker as Partial<Checker> | undefined;
  switch (c?.type) {
    case 'answer':
      if (c.expected === undefined && c.expected_key === undefined) {
        throw new Error(
          `${where}: an answer check needs expected or expected_key`
        );
      }
      return;
    case 'python':
      if (typeof c.code !== 'string') {
        throw new Error(`${where}: a python check needs code`);
      }
      return;
    case 'image':
      return;
    case 'all':
      if (!Array.isArray(c.checks)) {
        throw new Error(`${where}: an all check needs checks`);
      }
      c.checks.forEach(inner => validateChecker(inner, where));
      return;
    default:
      throw new Error(
        `${where}: checker.type must be answer, python, image or all`
      );
  }
}
