/**
 * What the user adds to a prompt besides its words: files (already copied
 * next to the notebook), cells they picked, and variables they mention as
 * `@name`. It travels with the user's message, after the request, so the
 * request itself stays first.
 */
import {
  shapeText,
  type IProbeOptions,
  type IVariableRow
} from '../tools/variables-probe';
import { formatBytes, truncateMiddle } from './text';

/** A file the user attached, in the notebook's directory. */
export interface IFileAttachment {
  /** Path relative to the notebook's directory. */
  name: string;
  size?: number;
}

/** A cell the user added to the chat. */
export interface ICellAttachment {
  id: string;
  /** Its 1-based position, for the user's wording ("cell 3"). */
  index: number;
  source: string;
}

/** Everything attached to one prompt. */
export interface IAttachments {
  files?: ReadonlyArray<IFileAttachment>;
  cells?: ReadonlyArray<ICellAttachment>;
}

/** Names mentioned as `@name` (Python identifiers), in order, without repeats. */
export function variableMentions(prompt: string): string[] {
  const names: string[] = [];
  for (const match of prompt.matchAll(
    /(?:^|[\s(,])@([A-Za-z_][A-Za-z0-9_]*)/g
  )) {
    if (!names.includes(match[1])) {
      names.push(match[1]);
    }
  }
  return names.slice(0, 8);
}

/** The probe's question for `@name` mentions (tools/variables-probe.ts). */
export function mentionProbe(names: readonly string[]): IProbeOptions {
  return { names, reprChars: 300, limit: names.length };
}

/**
 * What the kernel says of each mentioned variable, a line each: its type,
 * shape and columns (dtypes), or a clipped repr; or that it is not defined.
 */
export function describeVariableRows(
  rows: ReadonlyArray<IVariableRow>,
  mark = '@'
): string {
  return rows
    .map(row => {
      if (row.missing) {
        return `${mark}${row.name}: not defined in the kernel`;
      }
      const parts = [`${mark}${row.name}: ${row.type ?? 'unknown'}`];
      // A 0-d shape is a scalar (numpy's): its value says more than "shape ()".
      const scalar = row.shape?.length === 0;
      if (row.shape && !scalar) {
        parts.push(`shape ${shapeText(row.shape)}`);
      }
      if (row.columns) {
        parts.push(
          'columns ' + row.columns.map(([c, d]) => `${c} (${d})`).join(', ')
        );
      } else if ((!row.shape || scalar) && row.repr !== undefined) {
        parts.push(row.repr);
      }
      return parts.join('; ');
    })
    .join('\n');
}

/** The context block appended to the user's message. */
export function attachmentContext(
  attachments: IAttachments,
  variables = ''
): string {
  const parts: string[] = [];
  if (attachments.files?.length) {
    parts.push(
      'Files the user attached (in the notebook’s directory; open them by these relative paths):',
      ...attachments.files.map(
        file =>
          `- ${file.name}${file.size !== undefined ? ` (${formatBytes(file.size)})` : ''}`
      )
    );
  }
  for (const cell of attachments.cells ?? []) {
    parts.push(
      `Cell ${cell.index} (cell_id ${cell.id}), which the user points to:`,
      '```python',
      truncateMiddle(cell.source, 3000),
      '```'
    );
  }
  if (variables.trim()) {
    parts.push(
      'Variables the user mentioned, as the kernel has them:',
      variables.trim()
    );
  }
  return parts.length ? `\n\n${parts.join('\n')}` : '';
}
