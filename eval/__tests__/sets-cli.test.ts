/**
 * `eval/run.ts --set …` as the lane calls it: the set chosen by name (and
 * its held-out part), a set file whose kind contradicts --set, options of
 * the Q&A set only and an unknown --only id are refused before anything
 * runs (exit 1, the reason on stderr); the set files are found.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { setFile, setKindOf } from '../src/sets/load';

const REPO = join(__dirname, '..', '..');

/** Run eval/run.ts with `args`; its exit code and stderr. */
function evalRun(args: string[]): Promise<{ code: number; stderr: string }> {
  return new Promise(resolve => {
    execFile(
      join(REPO, 'node_modules', '.bin', 'tsx'),
      ['eval/run.ts', '--base-url', 'http://127.0.0.1:9/v1', ...args],
      { cwd: REPO, timeout: 60_000 },
      (error, _stdout, stderr) =>
        resolve({
          code: error ? ((error as { code?: number }).code ?? 1) : 0,
          stderr
        })
    );
  });
}

describe('eval/run.ts --set', () => {
  it('finds each set and its held-out part by name', async () => {
    for (const kind of ['followup', 'fix', 'generate'] as const) {
      expect(await setKindOf(setFile(kind, false))).toBe(kind);
      expect(await setKindOf(setFile(kind, true))).toBe(kind);
    }
    expect(setFile('qa', false)).toMatch(/eval\/tasks\/builtin\.json$/);
    expect(setFile('qa', true)).toMatch(/eval\/tasks\/holdout\.json$/);
    expect(await setKindOf(setFile('qa', false))).toBe('qa');
  });

  it('refuses a set file of another kind, Q&A-only options and unknown ids', async () => {
    const mismatch = await evalRun([
      '--set',
      'fix',
      '--tasks',
      join('eval', 'tasks', 'followup.json')
    ]);
    expect(mismatch.code).toBe(1);
    expect(mismatch.stderr).toMatch(
      /--set fix, but .*followup\.json is a followup set/
    );
    const qaOnly = await evalRun(['--set', 'fix', '--protocol', 'text']);
    expect(qaOnly.code).toBe(1);
    expect(qaOnly.stderr).toMatch(/--protocol: for the Q&A set only/);
    const unknown = await evalRun(['--set', 'generate', '--only', 'gen-nope']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/--only: no task gen-nope in generate/);
  }, 120_000);
});
