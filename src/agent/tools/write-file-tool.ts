/**
 * `write_file`: create or replace a text file in the server root (a helper
 * module, a config, a report). The model's path is untrusted: it goes
 * through the same checks as `read_file` (`rootPath`: no "..", no "~", no
 * drive or URL, nothing hidden), then the port's engine asks the server
 * where it really leads (a link to .env or out of the root is refused).
 *
 * Creating a file is an edit; replacing one asks first whatever the mode
 * (kind `replace`), showing a diff against the file as it is. Creating a
 * file that runs or steers later (a `.pth`, a module next to the notebook,
 * `pip.conf`, `AGENTS.md`: runs-later.ts) asks too, with the reason in the
 * card's title; a call that skipped the approval step cannot create one.
 * Where the path really leads is judged too (write-landing.ts): a name
 * that a folder link leads to such a place is refused with the real place,
 * and a file with other names (a hard link, whose other names no card could
 * show) is never replaced. The write is
 * refused when the file changed between what the approval showed and the
 * write. The result carries the content before, so one Undo puts it back
 * (or removes a file the agent created): session/file-undo.ts.
 */
import { createTwoFilesPatch } from 'diff';
import { NoSuchFileError } from '../ports';
import type { INotebookPort } from '../ports';
import { rootPath } from './file-tools';
import { defineTool, type IToolPreview } from './registry';
import type { IRunsLater } from './runs-later';
import { landingOf } from './write-landing';

/** Longest content write_file accepts, in characters. */
export const MAX_WRITE_CHARS = 1_000_000;

interface IWriteArgs {
  path: string;
  content: string;
}

/** The checked path, or the refusal (for the model to read). */
function checkedPath(raw: string): { path: string } | { refused: string } {
  const checked = rootPath(raw);
  if ('refused' in checked) {
    return checked;
  }
  if (!checked.path) {
    return { refused: 'Refused: give the path of a file, not the root.' };
  }
  if (/\.ipynb$/i.test(checked.path)) {
    return {
      refused:
        'Refused: write_file does not write notebooks; use the cell tools ' +
        '(insert_cell, edit_cell) in the open notebook.'
    };
  }
  return checked;
}

/** The file's text now, or null when there is none. */
async function currentText(
  notebook: INotebookPort,
  path: string
): Promise<string | null> {
  try {
    return await notebook.readFile(path);
  } catch (error) {
    if (error instanceof NoSuchFileError) {
      return null;
    }
    throw error;
  }
}

/** The card's question, with why the file acts later when it does. */
function titled(
  verb: 'Create' | 'Replace',
  path: string,
  later: IRunsLater | null
): Pick<IToolPreview, 'title' | 'runsLater'> {
  return later
    ? { title: `${verb} ${path} (${later.reason})`, runsLater: later }
    : { title: `${verb} ${path}` };
}

/** A unified diff from `before` to `after`, for the approval card. */
export function fileDiff(path: string, before: string, after: string): string {
  return createTwoFilesPatch(path, path, before, after, '', '', {
    context: 3
  })
    .split('\n')
    .slice(2) // "Index: …" and its "====" rule
    .map(line =>
      line.startsWith('---') || line.startsWith('+++') ? line.trimEnd() : line
    )
    .join('\n')
    .trimEnd();
}

/** `write_file`: create or replace a text file under the server root. */
export const writeFile = defineTool<IWriteArgs>({
  name: 'write_file',
  kind: 'edit',
  title: args => `Write ${args.path}`,
  codeArgument: 'content',
  description:
    'Create or replace a text file (a .py module, a config, a report) relative to the ' +
    'server root, with its complete new content (missing folders are created). Replacing an existing file asks the ' +
    'user first, showing the diff; so does creating one that runs later (a .py next to the notebook, a .pth, ' +
    'AGENTS.md, anything in site-packages or bin/). Hidden paths and paths outside the root are refused; ' +
    'notebooks are edited with the cell tools.',
  parameters: {
    type: 'object',
    properties: {
      path: {
        type: 'string',
        description: 'e.g. "helpers/clean.py" (relative to the server root).'
      },
      // No maxLength in the schema: servers that turn schemas into grammars
      // (llama.cpp) would build one of a million repetitions.
      content: {
        type: 'string',
        description: 'The whole new text of the file.'
      }
    },
    required: ['path', 'content'],
    additionalProperties: false
  },
  async preview(args, { notebook, state }) {
    const checked = checkedPath(args.path);
    if ('refused' in checked) {
      return { refused: checked.refused };
    }
    const { path } = checked;
    const landing = await landingOf(notebook, path);
    if ('refused' in landing) {
      return { refused: landing.refused };
    }
    const { later } = landing;
    const before = await currentText(notebook, path);
    state.filesShown.set(path, before);
    if (before === null) {
      return {
        kind: 'edit',
        ...titled('Create', path, later),
        code: args.content
      };
    }
    // The same content writes nothing: nothing to ask.
    const same = before === args.content;
    return {
      kind: same ? 'edit' : 'replace',
      ...titled('Replace', path, same ? null : later),
      code: null,
      diff: fileDiff(path, before, args.content)
    };
  },
  async execute(args, { notebook, state }) {
    const checked = checkedPath(args.path);
    if ('refused' in checked) {
      return { ok: false, output: checked.refused };
    }
    const { path } = checked;
    if (args.content.length > MAX_WRITE_CHARS) {
      return {
        ok: false,
        output: `Refused: ${args.content.length} characters is more than write_file writes (${MAX_WRITE_CHARS}).`
      };
    }
    const before = await currentText(notebook, path);
    const shown = state.filesShown.get(path);
    state.filesShown.delete(path);
    if (shown !== undefined && shown !== before) {
      return {
        ok: false,
        output:
          `Refused: ${path} changed since the user was shown it` +
          `${before === null ? ' (it is gone)' : ''}, so it was not written. ` +
          'Read it again (read_file) and call write_file with the new content if it still makes sense.'
      };
    }
    if (shown === undefined && before !== null) {
      // Only the loop's approval step (which shows the diff) may replace a file.
      return {
        ok: false,
        output: `Refused: ${path} exists, and replacing it needs the user's approval of the diff.`
      };
    }
    if (shown === undefined && before === null) {
      const landing = await landingOf(notebook, path);
      if ('refused' in landing) {
        return { ok: false, output: landing.refused };
      }
      if (landing.later) {
        // Only the loop's approval step (which says why) may create one.
        return {
          ok: false,
          output: `Refused: creating ${path} needs the user's approval: ${landing.later.reason}.`
        };
      }
    }
    if (before === args.content) {
      return {
        ok: true,
        output: `${path} already has this content: nothing written.`
      };
    }
    await notebook.writeFile(path, args.content);
    const lines = args.content.split('\n').length;
    return {
      ok: true,
      output:
        before === null
          ? `Created ${path} (${args.content.length} characters, ${lines} lines).`
          : `Replaced ${path} (${before.length} → ${args.content.length} characters, ${lines} lines).`,
      fileChange: { path, before, after: args.content }
    };
  }
});
