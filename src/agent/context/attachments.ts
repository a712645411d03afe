/**
 * What the user adds to a prompt besides its words: files (already copied
 * next to the notebook), cells they picked, and variables they mention as
 * `@name`. It travels with the user's message, after the request, so the
 * request itself stays first.
 */
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

/**
 * Python that prints a short description of each variable (type, shape,
 * columns and dtypes, or a clipped repr), or that it does not exist. The
 * names are identifiers (variableMentions), never arbitrary text.
 */
export function variableInspectionCode(names: readonly string[]): string {
  return [
    'def __na_describe(__name):',
    '    __ns = globals()',
    '    if __name not in __ns:',
    "        return f'@{__name}: not defined in the kernel'",
    '    __v = __ns[__name]',
    "    __t = type(__v).__module__ + '.' + type(__v).__qualname__",
    "    __parts = [f'@{__name}: {__t}']",
    "    __shape = getattr(__v, 'shape', None)",
    '    if __shape is not None:',
    "        __parts.append(f'shape {tuple(__shape)}')",
    "    __dtypes = getattr(__v, 'dtypes', None)",
    '    if __dtypes is not None and hasattr(__dtypes, "items"):',
    "        __parts.append('columns ' + ', '.join(f'{c} ({d})' for c, d in list(__dtypes.items())[:30]))",
    '    elif __shape is None:',
    '        __r = repr(__v)',
    "        __parts.append(__r if len(__r) < 300 else __r[:300] + '…')",
    "    return '; '.join(__parts)",
    `for __n in ${JSON.stringify(names)}:`,
    '    print(__na_describe(__n))',
    'del __na_describe'
  ].join('\n');
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
