/**
 * The cursor's surroundings in a notebook: its cell's text before and after
 * it, and the cells above with their last output, as inline completion's
 * prompt reads them (src/agent/completion/fim-prompt.ts).
 */
import type { NotebookPanel } from '@jupyterlab/notebook';
import type {
  ICursorContext,
  IContextCell
} from '../../agent/completion/fim-prompt';

/** Characters of a cell's last output kept. */
const OUTPUT_CHARS = 400;

/** The cursor's context in `panel`'s active cell, or null when that is not a code cell. */
export function notebookCursor(
  panel: NotebookPanel,
  text: string,
  offset: number
): ICursorContext | null {
  const notebook = panel.content;
  const active = notebook.activeCell;
  if (!active || active.model.type !== 'code') {
    return null;
  }
  const cellsAbove: IContextCell[] = [];
  for (const cell of notebook.widgets.slice(0, notebook.activeCellIndex)) {
    const source = cell.model.sharedModel.getSource();
    if (cell.model.type === 'markdown') {
      cellsAbove.push({ kind: 'markdown', source });
    } else if (cell.model.type === 'code') {
      const outputs = (cell.model as { outputs?: { toJSON(): unknown[] } })
        .outputs;
      cellsAbove.push({
        kind: 'code',
        source,
        output: outputs ? lastOutputText(outputs.toJSON()) : ''
      });
    }
  }
  return {
    before: text.slice(0, offset),
    after: text.slice(offset),
    cellsAbove
  };
}

/** The text of a cell's last output (a stream, a result's text/plain, an error's name and value). */
export function lastOutputText(outputs: unknown[]): string {
  const last = outputs[outputs.length - 1] as
    | {
        output_type?: string;
        text?: string | string[];
        data?: Record<string, unknown>;
        ename?: string;
        evalue?: string;
      }
    | undefined;
  if (!last) {
    return '';
  }
  const joined = (value: unknown): string =>
    Array.isArray(value)
      ? value.join('')
      : typeof value === 'string'
        ? value
        : '';
  let text = '';
  if (last.output_type === 'stream') {
    text = joined(last.text);
  } else if (last.output_type === 'error') {
    text = `${last.ename ?? 'Error'}: ${last.evalue ?? ''}`;
  } else if (last.data) {
    text = joined(last.data['text/plain']);
  }
  return text.length > OUTPUT_CHARS ? text.slice(0, OUTPUT_CHARS) : text;
}
