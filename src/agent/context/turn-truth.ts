/**
 * What the transcript must not show after a turn a workflow wrote the
 * prompt of (Generate, Fix): the model's echo of those internal
 * instructions, and a claim that the notebook changed when no cell did.
 *
 * Measured with Qwen2.5-Coder-1.5B in Generate: it copied lines of the
 * repair prompt ("Fix the notebook so it runs top to bottom…") into its
 * answer, and said "The notebook is fixed" twice when nothing had changed.
 */

/** Lines this short are common phrases, not an echo. */
const MIN_ECHO_CHARS = 30;

/**
 * `answer` without the lines it copied from `prompt` (an internal prompt
 * the user never saw); '' when nothing else is left.
 */
export function withoutEcho(answer: string, prompt: string): string {
  const said = new Set(
    prompt
      .split('\n')
      .map(line => normal(line))
      .filter(line => line.length >= MIN_ECHO_CHARS)
  );
  if (!said.size) {
    return answer;
  }
  return answer
    .split('\n')
    .filter(line => !said.has(normal(line)))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function normal(line: string): string {
  return line.trim().replace(/\s+/g, ' ').toLowerCase();
}

/** Claims that the notebook or a cell was changed. */
const CHANGE_CLAIM =
  /\b(?:notebook|cell|code)\b[^.\n]{0,60}?\b(?:is|has been|was|are|have been|now)\s+(?:now\s+)?(?:fixed|corrected|updated|repaired|changed|modified|edited)\b|\bI(?:'ve| have)?\s+(?:now\s+)?(?:fixed|corrected|updated|changed|edited|repaired|modified|rewrote|replaced)\b/i;

/** Whether `text` says the notebook (or a cell) was changed. */
export function claimsChange(text: string): boolean {
  return CHANGE_CLAIM.test(text);
}

/** The transcript's line under an answer that claims a change no cell shows. */
export const NO_CHANGE_NOTICE =
  '⚠ No cell of the notebook changed in this step, whatever the answer above says.';
