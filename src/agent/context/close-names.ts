/**
 * The column a misspelt name meant, when the kernel has one close to it:
 * what pandas does not say for a DataFrame column (a KeyError names only
 * the key) and a person finds at a glance in the column list.
 *
 * Measured with Qwen2.5-Coder-1.5B on the Fix set: for
 * `sales['Unit_Price']` with the columns listed, it wrote `units` (a
 * column that exists, so the cell ran and computed the wrong mean) in one
 * greedy run and `price_per_unit` (a KeyError again) in another.
 */

/** Lower case, letters and digits only: `Unit_Price` and `unit price` are the same name. */
function normal(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** Edit distance, bounded (above `max` it returns max + 1). */
function distance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) {
    return max + 1;
  }
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(
        previous[j] + 1,
        row[j - 1] + 1,
        previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1)
      );
    }
    previous = row;
  }
  return previous[b.length];
}

/**
 * The one name of `names` that `missing` most likely meant: the same name
 * but for case and separators, else the only one within two edits (of
 * names longer than three characters); null when none or several.
 */
export function closestName(
  missing: string,
  names: ReadonlyArray<string>
): string | null {
  const key = normal(missing);
  if (!key || names.includes(missing)) {
    return null;
  }
  const same = names.filter(name => normal(name) === key);
  if (same.length === 1) {
    return same[0];
  }
  if (same.length > 1 || key.length <= 3) {
    return null;
  }
  const near = names.filter(name => distance(normal(name), key, 2) <= 2);
  return near.length === 1 ? near[0] : null;
}

/** The column names of a kernel note (context/kernel-variables.ts: `columns a (int64), b (object)`). */
export function noteColumns(note: string | null): string[] {
  return [...(note ?? '').matchAll(/columns (.+)$/gm)].flatMap(match =>
    [...match[1].matchAll(/(?:^|, )(.+?) \([^()]*\)/g)].map(m => m[1])
  );
}

/** The line for a KeyError on a name close to one of `note`'s columns, or null. */
export function closeColumnHint(
  problem: string,
  note: string | null
): string | null {
  const missing = /KeyError: ['"]([^'"]+)['"]/.exec(problem)?.[1];
  const meant = missing ? closestName(missing, noteColumns(note)) : null;
  return missing && meant
    ? `There is no column '${missing}'; the column with that name is '${meant}'.`
    : null;
}
