/**
 * The new sets' tasks are right: their data and expected values are
 * generated (eval/data/generate_sets.py), and in a real kernel every Fix
 * task's broken cell fails its checker while its reference `solution`
 * passes it, and every follow-up question's reference code, run after the
 * questions before it, passes that question's checker. So a checker cannot
 * be wrong, nor an expected value, nor a task that is already fixed.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServerNotebookPort } from '../../src/headless/server-port/server-port';
import { runChecker } from '../src/checkers';
import { openEvalServer, type IEvalServer } from '../src/eval-server';
import { writeAndRun } from '../src/sets/fix';
import { missingValues } from '../src/sets/generate';
import { loadSessionSet, taskKeys } from '../src/sets/load';
import type {
  IFixTask,
  IFollowupTask,
  IGenerateTask,
  SessionSet,
  SessionSetKind
} from '../src/sets/types';

jest.setTimeout(300_000);

const TASKS = join(__dirname, '..', 'tasks');

/** Whether the kernel's Python can plot (matplotlib is not a test dependency). */
const canPlot = (() => {
  try {
    execFileSync(process.env.PYTHON ?? 'python3', ['-c', 'import matplotlib'], {
      stdio: 'ignore'
    });
    return true;
  } catch {
    return false;
  }
})();

let dataDir: string;
let server: IEvalServer;
let port: ServerNotebookPort;
const sets = new Map<string, SessionSet>();

beforeAll(async () => {
  jest.spyOn(console, 'debug').mockImplementation(() => undefined);
  jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  dataDir = await mkdtemp(join(tmpdir(), 'eval-sets-ref-'));
  for (const name of [
    'followup',
    'followup-holdout',
    'fix',
    'fix-holdout',
    'generate',
    'generate-holdout'
  ]) {
    sets.set(
      name,
      await loadSessionSet(join(TASKS, `${name}.json`), { dataDir })
    );
  }
  server = await openEvalServer(undefined, 'reference');
  const files = (await readdir(dataDir))
    .filter(f => f !== 'expected.json')
    .map(f => join(dataDir, f));
  const folder = await server.prepareTask('reference', files);
  port = await ServerNotebookPort.open({
    serverSettings: server.settings,
    path: `${folder}/reference.ipynb`,
    createIfMissing: true
  });
}, 300_000);

afterAll(async () => {
  await port?.close({ shutdownKernel: true }).catch(() => undefined);
  await server?.dispose();
  await rm(dataDir, { recursive: true, force: true });
});

/** A fresh start in the same kernel: no names, no cells. */
async function clean(): Promise<void> {
  const reset = await port.executeCode('%reset -f', {
    hardTimeoutMs: 30_000
  });
  expect(reset.status).toBe('ok');
  for (const cell of await port.getCells()) {
    await port.deleteCell(cell.id);
  }
}

const stdout = (outputs: ReadonlyArray<{ type: string; text?: string }>) =>
  outputs
    .filter(o => o.type === 'stream')
    .map(o => o.text ?? '')
    .join('');

describe('the new sets', () => {
  it.each([
    ['followup', 10, 3],
    ['fix', 20, 6],
    ['generate', 10, 3]
  ] as Array<[SessionSetKind, number, number]>)(
    '%s: at least %i tasks and %i held out, their values and files generated',
    (kind, least, heldOut) => {
      const main = sets.get(kind)!;
      const holdout = sets.get(`${kind}-holdout`)!;
      expect(main.kind).toBe(kind);
      expect(holdout.kind).toBe(kind);
      expect(main.tasks.length).toBeGreaterThanOrEqual(least);
      expect(holdout.tasks.length).toBeGreaterThanOrEqual(heldOut);
      const ids = [...main.tasks, ...holdout.tasks].map(t => t.id);
      expect(new Set(ids).size).toBe(ids.length);
      for (const task of [...main.tasks, ...holdout.tasks]) {
        for (const key of taskKeys(task)) {
          expect([task.id, key, key in main.expected]).toEqual([
            task.id,
            key,
            true
          ]);
        }
        for (const file of task.files ?? []) {
          expect(existsSync(join(dataDir, file))).toBe(true);
        }
      }
    }
  );

  it.each(['generate', 'generate-holdout'])(
    '%s: every asked value is a number (or numbers by name), found by a matching cell output',
    name => {
      const set = sets.get(name)!;
      for (const task of set.tasks as IGenerateTask[]) {
        for (const value of task.values ?? []) {
          const want = set.expected[value.expected_key];
          const numbers =
            typeof want === 'object' && want !== null
              ? Object.values(want)
              : [want];
          expect([task.id, numbers.every(n => typeof n === 'number')]).toEqual([
            task.id,
            true
          ]);
          // Printed as pandas prints them, every value is found.
          const text = numbers.map(n => (n as number).toFixed(6)).join('\n');
          expect(missingValues(value, set.expected, text)).toEqual([]);
        }
      }
    }
  );

  it('follow-up sessions have 3 to 5 questions; Fix covers every kind of break', () => {
    for (const name of ['followup', 'followup-holdout']) {
      for (const task of sets.get(name)!.tasks as IFollowupTask[]) {
        expect([task.id, task.questions.length >= 3]).toEqual([task.id, true]);
        expect([task.id, task.questions.length <= 5]).toEqual([task.id, true]);
      }
    }
    const kinds = new Set(sets.get('fix')!.tasks.map(t => t.category));
    for (const kind of [
      'misspelt name',
      'missing import',
      'no such method',
      'text not parsed',
      'merge key',
      'removed pandas API',
      'file format',
      'shape mismatch',
      'logic error'
    ]) {
      expect(kinds).toContain(kind);
    }
  });

  it.each(['fix', 'fix-holdout'])(
    '%s: each broken cell fails its checker, its reference fix passes it',
    async name => {
      const set = sets.get(name)!;
      for (const task of set.tasks as IFixTask[]) {
        await clean();
        const ids = await writeAndRun(port, task.cells, 60_000);
        const target = ids[task.target ?? ids.length - 1];
        const broken = (await port.getCells()).find(c => c.id === target)!;
        const errored = broken.outputs.some(o => o.type === 'error');
        if (task.category !== 'logic error') {
          // The user sees an error on the cell when they ask for the fix.
          expect([task.id, 'shows an error', errored]).toEqual([
            task.id,
            'shows an error',
            true
          ]);
        }
        const context = {
          finalText: '',
          notebook: port,
          expected: set.expected
        };
        const before = await runChecker(task.checker, context);
        expect([task.id, 'broken', before.pass]).toEqual([
          task.id,
          'broken',
          false
        ]);
        await port.editCell(target, task.solution);
        const fixed = await port.runCell(target, { hardTimeoutMs: 60_000 });
        expect([task.id, fixed.status]).toEqual([task.id, 'ok']);
        const after = await runChecker(task.checker, context);
        expect([task.id, 'fixed', after.detail]).toEqual([
          task.id,
          'fixed',
          'python check passed'
        ]);
      }
    }
  );

  it.each(['followup', 'followup-holdout'])(
    '%s: each question’s reference code, after the ones before it, passes its checker',
    async name => {
      const set = sets.get(name)!;
      const tasks = set.tasks as IFollowupTask[];
      let checked = 0;
      for (const task of tasks) {
        await clean();
        for (const [index, question] of task.questions.entries()) {
          if (question.checker.type === 'image') {
            // Plots: the next test (matplotlib is not always installed).
            continue;
          }
          const [id] = await writeAndRun(port, [question.solution], 60_000);
          const cell = (await port.getCells()).find(c => c.id === id)!;
          const verdict = await runChecker(question.checker, {
            finalText: stdout(cell.outputs),
            notebook: port,
            expected: set.expected
          });
          expect([task.id, index + 1, verdict.detail, verdict.pass]).toEqual([
            task.id,
            index + 1,
            verdict.detail,
            true
          ]);
          checked += 1;
        }
      }
      expect(checked).toBe(
        tasks.flatMap(t => t.questions).filter(q => q.checker.type !== 'image')
          .length
      );
      expect(checked).toBeGreaterThanOrEqual(9);
    }
  );

  (canPlot ? it.each : it.skip.each)(['followup', 'followup-holdout'])(
    '%s: the plot questions’ reference code makes a new image (needs matplotlib)',
    async name => {
      const set = sets.get(name)!;
      for (const task of set.tasks as IFollowupTask[]) {
        await clean();
        await port.executeCode(
          "import matplotlib\nmatplotlib.use('Agg')\n%matplotlib inline",
          {
            hardTimeoutMs: 60_000
          }
        );
        for (const question of task.questions) {
          const ranSince = new Map(
            (await port.getCells()).map(c => [c.id, c.executionCount])
          );
          await writeAndRun(port, [question.solution], 60_000);
          if (question.checker.type === 'image') {
            const verdict = await runChecker(question.checker, {
              finalText: '',
              notebook: port,
              expected: set.expected,
              ranSince
            });
            expect([task.id, verdict.detail, verdict.pass]).toEqual([
              task.id,
              verdict.detail,
              true
            ]);
          }
        }
      }
    }
  );
});
