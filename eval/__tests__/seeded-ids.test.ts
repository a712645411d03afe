/**
 * The eval's cell ids: the same in every run of a task, different between
 * tasks, and of the form JupyterLab's ids have (so prompts look as in use).
 */
import { seededCellIds } from '../src/seeded-ids';

const UUID_V4 =
  /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const take = (next: () => string, count: number) =>
  Array.from({ length: count }, () => next());

describe('seededCellIds', () => {
  it('gives a task the same ids in every run, each one new', () => {
    const first = take(seededCellIds('fix-groupby'), 50);
    expect(take(seededCellIds('fix-groupby'), 50)).toEqual(first);
    expect(new Set(first).size).toBe(50);
  });

  it('gives another task other ids', () => {
    const a = take(seededCellIds('fix-groupby'), 20);
    const b = take(seededCellIds('fix-groupby2'), 20);
    expect(a.filter(id => b.includes(id))).toEqual([]);
  });

  it('writes them as version-4 UUIDs, valid nbformat cell ids', () => {
    for (const id of take(seededCellIds('q-sales'), 200)) {
      expect(id).toMatch(UUID_V4);
      expect(id).toMatch(/^[a-zA-Z0-9-_]{1,64}$/);
    }
  });
});
