/**
 * A Generate step whose cell ran and showed nothing: its result is shown.
 * When the cell ends with an assignment (`by_year = df.groupby(…)…`), the
 * assigned name is added as the cell's last line, so the notebook shows
 * what the step computed when it runs from the top (verification runs it).
 * The cell is not run again here: a step like `df = df.drop(columns='x')`
 * fails when run twice.
 *
 * Measured with Qwen2.5-Coder-1.5B on the Generate set: steps asked to
 * "compute the total rainfall for each year" or "group … and calculate the
 * total revenue" assigned the result and printed nothing, so the notebook
 * never showed the values the request asked for.
 */

/** `source` with its last assignment's target shown, or null (it ends otherwise). */
export function withResultShown(source: string): string | null {
  const lines = source.replace(/\s+$/, '').split('\n');
  // The last top-level statement: a line at column 0 that is not a comment,
  // a decorator or the closing bracket of the statement above.
  let last = -1;
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i];
    if (/^[^\s#@)\]}]/.test(line)) {
      last = i;
      break;
    }
  }
  if (last < 0) {
    return null;
  }
  const target = assignedTarget(lines[last]);
  if (!target) {
    return null;
  }
  return `${lines.join('\n')}\n${target}`;
}

/**
 * The target of an assignment statement (`name`, `a, b`, `df['x']`,
 * `obj.attr`), or null: not an assignment, an augmented one, a comparison
 * or a name that is not worth showing (`_`, a figure or axes).
 */
function assignedTarget(line: string): string | null {
  const match =
    /^((?:[A-Za-z_]\w*(?:\.[A-Za-z_]\w*|\[[^\]\n]*\])*)(?:\s*,\s*[A-Za-z_]\w*)*)\s*=(?!=)/.exec(
      line
    );
  if (!match) {
    return null;
  }
  const target = match[1].trim();
  const names = target.split(/\s*,\s*/);
  if (names.some(name => /^(?:_|fig|ax|axes|axs|plt|figure)$/i.test(name))) {
    return null;
  }
  return target;
}
