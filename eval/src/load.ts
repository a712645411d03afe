/**
 * Loading task sets: our JSON format (eval/tasks/*.json), and external
 * question + file + answer sets in JSON Lines (DABench/DABStep style).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { parseNumber } from './answers';
import {
  validateTask,
  type ExpectedValue,
  type ITask,
  type ITaskSet
} from './task';

const run = promisify(execFile);

/** How to load a set. */
export interface ILoadOptions {
  /** Data folder (default: the set's `data_dir`, else the file's folder). */
  dataDir?: string;
  /** JSONL: a separate answers file (DABench's *-labels.jsonl). */
  answersFile?: string;
  /** JSONL: relative tolerance for numeric answers (default 0.001). */
  relative?: number;
  /** Python for the generator (default $PYTHON or python3). */
  python?: string;
}

/** Load a task set from a .json (ours) or .jsonl (external) file. */
export async function loadTaskSet(
  file: string,
  options: ILoadOptions = {}
): Promise<ITaskSet> {
  const path = resolve(file);
  const text = await readFile(path, 'utf8');
  if (path.endsWith('.jsonl')) {
    const answers = options.answersFile
      ? parseJsonLines(await readFile(options.answersFile, 'utf8'))
      : [];
    return fromJsonLines(parseJsonLines(text), answers, {
      name: path
        .split('/')
        .pop()!
        .replace(/\.jsonl$/, ''),
      dataDir: resolve(options.dataDir ?? dirname(path)),
      relative: options.relative
    });
  }
  const raw = JSON.parse(text) as {
    name?: string;
    data_dir?: string;
    generator?: string;
    tasks?: unknown[];
  };
  if (!Array.isArray(raw.tasks)) {
    throw new Error(`${file}: a task set needs a "tasks" list`);
  }
  const tasks = raw.tasks.map((t, i) => validateTask(t, `${file} task ${i}`));
  assertUniqueIds(tasks, file);
  const set: ITaskSet = {
    name:
      raw.name ??
      path
        .split('/')
        .pop()!
        .replace(/\.json$/, ''),
    tasks
  };
  if (raw.generator) {
    set.generator = resolve(dirname(path), raw.generator);
    set.dataDir =
      options.dataDir ??
      (await mkdtemp(join(tmpdir(), 'notebook-agent-eval-')));
    set.expected = await generate(set.generator, set.dataDir, options.python);
  } else {
    set.dataDir = resolve(
      options.dataDir ?? resolve(dirname(path), raw.data_dir ?? '.')
    );
  }
  return set;
}

/** Run a generator into `out`; returns its expected.json. */
export async function generate(
  script: string,
  out: string,
  python = process.env.PYTHON ?? 'python3'
): Promise<Record<string, unknown>> {
  await run(python, [script, '--out', out]);
  return JSON.parse(await readFile(join(out, 'expected.json'), 'utf8'));
}

function parseJsonLines(text: string): Array<Record<string, unknown>> {
  return text
    .split('\n')
    .filter(line => line.trim())
    .map(line => JSON.parse(line) as Record<string, unknown>);
}

/** A JSON text or number as the expected value (numbers stay numbers). */
function expectedValue(value: unknown): ExpectedValue {
  if (typeof value === 'number') {
    return value;
  }
  const text = String(value);
  return parseNumber(text) ?? text;
}

/**
 * External tasks, one JSON object per line:
 *   {"id", "question", "file" | "file_name" | "files", "answer",
 *    "tolerance"?, "relative"?, "constraints"?, "format"?}
 * or DABench's `common_answers: [[name, value], …]` (inline, or from a
 * separate answers file with the same ids), checked as `@name[value]`.
 */
export function fromJsonLines(
  rows: Array<Record<string, unknown>>,
  answerRows: Array<Record<string, unknown>>,
  options: { name: string; dataDir: string; relative?: number }
): ITaskSet {
  const answers = new Map(answerRows.map(row => [String(row.id), row]));
  const tasks = rows.map((row, i): ITask => {
    const id = String(row.id ?? i);
    const label = answers.get(id) ?? row;
    const files = [row.files, row.file, row.file_name]
      .flat()
      .filter((f): f is string => typeof f === 'string');
    const prompt = [
      String(row.question ?? row.prompt ?? ''),
      row.constraints ? `Constraints: ${String(row.constraints)}` : '',
      row.format ? `Answer format: ${String(row.format)}` : ''
    ]
      .filter(Boolean)
      .join('\n');
    const relative =
      typeof row.relative === 'number'
        ? row.relative
        : (options.relative ?? 0.001);
    const tolerance =
      typeof row.tolerance === 'number' ? row.tolerance : undefined;
    const common = label.common_answers;
    if (!Array.isArray(common) && label.answer === undefined) {
      throw new Error(`${options.name} line ${i + 1}: no answer for id ${id}`);
    }
    const checker = Array.isArray(common)
      ? {
          type: 'answer' as const,
          expected: Object.fromEntries(
            (common as Array<[string, unknown]>).map(([name, value]) => [
              name,
              expectedValue(value)
            ])
          ),
          relative,
          tolerance
        }
      : {
          type: 'answer' as const,
          expected: expectedValue(label.answer),
          relative,
          tolerance
        };
    return validateTask(
      {
        id: `${options.name}-${id}`.replace(/[^A-Za-z0-9_.-]/g, '_'),
        prompt,
        files,
        checker,
        category: typeof row.level === 'string' ? row.level : undefined
      },
      `${options.name} line ${i + 1}`
    );
  });
  assertUniqueIds(tasks, options.name);
  return { name: options.name, tasks, dataDir: options.dataDir };
}

function assertUniqueIds(tasks: ITask[], where: string): void {
  const seen = new Set<string>();
  for (const task of tasks) {
    if (seen.has(task.id)) {
      throw new Error(`${where}: duplicate task id ${task.id}`);
    }
    seen.add(task.id);
  }
}
