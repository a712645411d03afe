/**
 * Whether a request asks about the data the notebook holds, for the small
 * profile's compute check (loop/compute-check.ts): such a question is
 * answered by running code, so an answer from a turn that ran none is sent
 * back whatever its form (a name, a yes/no, a date; not only numbers).
 *
 * Measured with Qwen2.5-Coder-1.5B: a follow-up in the same chat ("Which
 * product has the highest mean unit_price?") got a wrong product name in
 * 2 s, no code run, and nothing marked it: the check looked for numbers,
 * and the request named no file. A follow-up names what earlier turns
 * made (`df`, a column) or leans on them ("those", "that region"); small
 * talk and questions about the agent's own work are not data questions.
 */

/** Requests that are not about the data, whatever they mention. */
const NOT_DATA =
  /^\s*(?:thanks?\b|thank you|ok(?:ay)?\b|great\b|cool\b|nice\b|hi\b|hello\b|hey\b)|\b(?:explain|why did you|what did you|how did you|what does .{1,40} mean)\b/i;

/** Words that open a question or an instruction to compute. */
const ASKS =
  /^\s*(?:which|what|how|who|whom|whose|when|where|is|are|was|were|does|do|did|has|have|can|could|show|plot|draw|chart|compute|calculate|count|list|find|give|get|sum|average|compare|rank|sort|filter|group|break|split|now|and|also|same|then|per|by)\b/i;

/**
 * Whether `request` asks about data: it names one of `names` (the kernel's
 * variables and DataFrame columns) or is a question or an instruction to
 * compute, in a notebook whose kernel holds data (`hasData`).
 */
export function isDataQuestion(
  request: string,
  names: ReadonlyArray<string>,
  hasData: boolean
): boolean {
  if (!hasData || NOT_DATA.test(request)) {
    return false;
  }
  const text = request.toLowerCase();
  const named = names.some(name => mentions(text, name.toLowerCase()));
  return named || request.includes('?') || ASKS.test(request);
}

/** Whether `text` holds `name` as a whole word (a column may hold spaces). */
function mentions(text: string, name: string): boolean {
  if (name.length < 2) {
    return false;
  }
  for (let at = text.indexOf(name); at >= 0; at = text.indexOf(name, at + 1)) {
    const before = text[at - 1] ?? ' ';
    const after = text[at + name.length] ?? ' ';
    if (!/\w/.test(before) && !/\w/.test(after)) {
      return true;
    }
  }
  return false;
}
