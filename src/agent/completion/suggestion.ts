/**
 * From a model's raw completion to the suggestion shown as ghost text: what
 * the cursor's line or block needs, without what already follows it. Small
 * models often run past the hole and rewrite the text after the cursor, or
 * start the next cell: that part is cut.
 */
import { CELL_MARKER, OUTPUT_MARKER, type CompletionMode } from './fim-prompt';

/** Lines a block suggestion may have. */
export const MAX_SUGGESTION_LINES = 8;

/** Special tokens some servers leave in the text (any family's). */
const LEFTOVER_TOKEN =
  /<\|(?:fim_\w+|endoftext|file_sep|im_end|im_start)\|>|<fim_\w+>|<file_sep>|<｜fim▁\w+｜>|<EOT>|<\/s>/;

/** The suggestion in `raw` for a cursor with `after` following it. */
export function cleanSuggestion(
  raw: string,
  mode: CompletionMode,
  after: string,
  maxLines = MAX_SUGGESTION_LINES
): string {
  let text = raw;
  const leftover = text.search(LEFTOVER_TOKEN);
  if (leftover >= 0) {
    text = text.slice(0, leftover);
  }
  // A new cell, or an output written the way the prompt shows outputs: not code.
  for (const end of [`\n${CELL_MARKER}`, `\n${OUTPUT_MARKER}`]) {
    const at = text.indexOf(end);
    if (at >= 0) {
      text = text.slice(0, at);
    }
  }
  if (mode === 'line') {
    text = text.split('\n', 1)[0];
    return withoutRestOfLine(text, after.split('\n', 1)[0]).trimEnd();
  }
  let lines = text.split('\n');
  // A next cell begins with its own marker at times: not code to insert.
  if (mode === 'next-cell' && lines[0].startsWith(CELL_MARKER)) {
    lines = lines.slice(1);
  }
  lines = untilTextAfter(lines, after).slice(0, maxLines);
  // The first line continues the cursor's; the rest, when only blank, add nothing.
  const joined = lines.join('\n').trimEnd();
  return joined.trim() ? joined : '';
}

/** `text` without its end when that end is what follows the cursor on its line. */
function withoutRestOfLine(text: string, restOfLine: string): string {
  const rest = restOfLine.trim();
  if (!rest) {
    return text;
  }
  if (text.trimEnd().endsWith(rest)) {
    return text.trimEnd().slice(0, text.trimEnd().length - rest.length);
  }
  // The model only wrote what is already there.
  return rest.startsWith(text.trim()) ? '' : text;
}

/**
 * The lines before the model began to repeat the text after the cursor (its
 * first non-blank line, when it is more than a bracket or two).
 */
function untilTextAfter(lines: string[], after: string): string[] {
  const next = after
    .split('\n')
    .map(line => line.trim())
    .find(line => line.length > 0);
  if (!next || next.length < 3) {
    return lines;
  }
  // Line 0 continues the cursor's line: it cannot be the text after.
  const repeat = lines.findIndex(
    (line, index) => index > 0 && line.trim() === next
  );
  return repeat > 0 ? lines.slice(0, repeat) : lines;
}
