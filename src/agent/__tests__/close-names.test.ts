/**
 * A misspelt column's KeyError names the column it meant, when the kernel
 * has exactly one close to it: same name but for case and separators, or
 * within two edits; never a guess among several, never for short names.
 */
import {
  closeColumnHint,
  closestName,
  noteColumns
} from '../context/close-names';
import { kernelNote } from '../context/kernel-variables';
import { rewritePrompt } from '../workflows/fix-rewrite';

const NOTE = kernelNote([
  {
    name: 'sales',
    type: 'pandas.DataFrame',
    shape: [2000, 4],
    columns: [
      ['region', 'object'],
      ['units', 'int64'],
      ['unit_price', 'float64'],
      ['unit_cost', 'float64']
    ]
  }
]);

describe('the column a misspelt name meant', () => {
  it('reads the columns of the kernel note', () => {
    expect(noteColumns(NOTE)).toEqual([
      'region',
      'units',
      'unit_price',
      'unit_cost'
    ]);
    expect(noteColumns(null)).toEqual([]);
  });

  it('is the same name but for case and separators, or the only one within two edits', () => {
    const names = noteColumns(NOTE);
    expect(closestName('Unit_Price', names)).toBe('unit_price');
    expect(closestName('unit price', names)).toBe('unit_price');
    expect(closestName('regoin', names)).toBe('region');
    // Two columns as close: no guess.
    expect(closestName('unit_cist', ['unit_cost', 'unit_cast'])).toBeNull();
    // Short names and far ones: none.
    expect(closestName('uni', names)).toBeNull();
    expect(closestName('revenue', names)).toBeNull();
    expect(closestName('units', names)).toBeNull();
  });

  it('is said under a KeyError in the Fix prompt, and nothing else is', () => {
    const cell = {
      id: 'c1',
      type: 'code' as const,
      source: "sales['Unit_Price'].mean()",
      outputs: [],
      executionCount: 2
    };
    const prompt = (problem: string) =>
      rewritePrompt(
        cell,
        '[2]',
        problem,
        { earlier: '', variables: NOTE },
        false
      );
    expect(prompt("It failed:\nKeyError: 'Unit_Price'")).toContain(
      "There is no column 'Unit_Price'; the column with that name is 'unit_price'."
    );
    expect(closeColumnHint("KeyError: 'profit'", NOTE)).toBeNull();
    expect(prompt("It failed:\nKeyError: 'profit'")).not.toContain(
      'the column with that name'
    );
  });
});
