/** A Fix task's `asked_before` is checked when its set loads. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSessionSet } from '../src/sets/load';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'eval-sets-load-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function load(task: Record<string, unknown>) {
  const file = join(dir, 'set.json');
  await writeFile(
    file,
    JSON.stringify({
      kind: 'fix',
      tasks: [
        {
          id: 't',
          cells: ['print(x)'],
          solution: 'x = 1\nprint(x)',
          checker: { type: 'python', code: 'assert x == 1' },
          ...task
        }
      ]
    })
  );
  return loadSessionSet(file, { dataDir: dir });
}

describe('a fix task’s asked_before', () => {
  it('is kept when it is a list of prompts', async () => {
    const set = await load({ asked_before: ['Load sales.csv.'] });
    expect(set.kind === 'fix' && set.tasks[0].asked_before).toEqual([
      'Load sales.csv.'
    ]);
  });

  it.each([['Load sales.csv.'], [''], [[1]], [['  ']]])(
    'is refused when it is %p',
    async asked => {
      await expect(load({ asked_before: asked })).rejects.toThrow(
        /asked_before/
      );
    }
  );
});
