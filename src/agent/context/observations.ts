/**
 * Formats notebook outputs as observations for the model, within a budget.
 *
 * Models need to read results, not drown in them: long text keeps its head
 * and tail with the number of elided characters, ANSI colour codes go, and
 * binary outputs (images) are described rather than pasted as base64.
 */
import type { CellOutput, ICellSnapshot, IRunResult } from '../ports';

/** Default character budget for one cell's outputs. */
export const OUTPUT_BUDGET = 4000;

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g;

/** Remove ANSI escape sequences (tracebacks are coloured). */
export function stripAnsi(text: string): string {
  return text.replace(ANSI, '');
}

/** Keep the head and tail of `text` within `budget` characters. */
export function truncateMiddle(text: string, budget: number): string {
  if (text.length <= budget) {
    return text;
  }
  const head = Math.ceil(budget * 0.6);
  const tail = budget - head;
  const elided = text.length - head - tail;
  return (
    text.slice(0, head) +
    `\n… [${elided} characters elided] …\n` +
    text.slice(text.length - tail)
  );
}

function asText(value: unknown): string {
  return Array.isArray(value) ? value.join('') : String(value ?? '');
}

/** One output as text. */
export function formatOutput(output: CellOutput): string {
  switch (output.type) {
    case 'stream':
      return output.name === 'stderr'
        ? `[stderr]\n${stripAnsi(output.text)}`
        : stripAnsi(output.text);
    case 'error':
      return [
        `${output.ename}: ${output.evalue}`,
        ...output.traceback.map(line => stripAnsi(line))
      ].join('\n');
    default: {
      const data = output.data;
      const parts: string[] = [];
      const mimes = Object.keys(data);
      if ('text/plain' in data) {
        parts.push(stripAnsi(asText(data['text/plain'])));
      }
      const images = mimes.filter(m => m.startsWith('image/'));
      for (const mime of images) {
        const size = asText(data[mime]).length;
        parts.push(`[${mime} image, ${Math.round((size * 3) / 4 / 1024)} KB]`);
      }
      const others = mimes.filter(
        m => m !== 'text/plain' && !m.startsWith('image/')
      );
      if (others.length && !('text/plain' in data)) {
        parts.push(`[rich output: ${others.join(', ')}]`);
      }
      return parts.join('\n');
    }
  }
}

/** All outputs of a cell, joined and kept within `budget`. */
export function formatOutputs(
  outputs: CellOutput[],
  budget = OUTPUT_BUDGET
): string {
  if (!outputs.length) {
    return '(no output)';
  }
  return truncateMiddle(outputs.map(formatOutput).join('\n'), budget);
}

/** The observation after running a cell. */
export function formatRunResult(result: IRunResult): string {
  const head =
    result.status === 'aborted'
      ? `cell_id: ${result.cellId ?? '(scratch)'} — the run was interrupted before it finished.`
      : `cell_id: ${result.cellId} ran (execution count ${result.executionCount ?? '?'}) ` +
        (result.status === 'ok' ? 'without error.' : 'and raised an error.');
  return `${head}\nOutput:\n${formatOutputs(result.outputs)}`;
}

/** A cell as read by `read_notebook`, with a short output summary. */
export function formatCell(cell: ICellSnapshot, outputBudget = 600): string {
  const run =
    cell.type === 'code'
      ? cell.executionCount === null
        ? ' (not run)'
        : ` [${cell.executionCount}]`
      : '';
  const lines = [
    `--- cell_id: ${cell.id} · ${cell.type}${run}`,
    truncateMiddle(cell.source, 2000)
  ];
  if (cell.type === 'code' && cell.outputs.length) {
    lines.push(`>>> output:\n${formatOutputs(cell.outputs, outputBudget)}`);
  }
  return lines.join('\n');
}
