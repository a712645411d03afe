/**
 * Reading a model's reply as the text protocol does (./text-protocol-client.ts):
 * its fenced code blocks, told apart from answers a small model fences or
 * writes into its code. Pure text functions; no imports, so the transcript
 * (session/transcript.ts) reads replies without loading the protocol's client.
 */

/**
 * A block of nothing but labelled answer lines ("ANSWER: 42", "Result:
 * 3.5") is the model fencing its answer, not code: small models do this
 * (measured with Qwen2.5-Coder-1.5B), and Python would run such a line as a
 * harmless annotation and print nothing, so the answer would never arrive.
 */
export function isAnswerLines(code: string): boolean {
  const lines = code.split('\n').filter(line => line.trim());
  // No `=`, call or subscript: `MAX: int = 5` stays code. An exception
  // line ("TypeError: …") a model copied is not an answer either: run as
  // code it fails, and the model gets another turn.
  return (
    lines.length > 0 &&
    lines.every(
      line =>
        /^\s*[A-Z][A-Za-z_ ]{0,30}:\s+[^=()[\]]+$/.test(line) &&
        !/^\s*\w*(Error|Exception|Warning|Interrupt|Exit):/.test(line)
    )
  );
}

/**
 * An answer line written as if it were code, at the start of a line: an
 * upper-case label, a colon and a value (`ANSWER: 100000.00`). Python runs
 * it as an annotation that does nothing.
 */
const GUESS_LINE = /^[A-Z][A-Z_]{1,30}:[ \t]+[^=()[\]\n]+$\n?/gm;

/**
 * `code` without the answer lines a model wrote into it before running it:
 * Qwen2.5-Coder-1.5B ended its blocks with `ANSWER: 100000.00`, a guess that
 * then stood in the user's cell and, shown back, was answered again over the
 * real output.
 */
export function withoutGuessLines(code: string): string {
  return code.replace(GUESS_LINE, '');
}

/** The ```python (or untagged) blocks of a reply, in order (not answer lines). */
export function extractCodeBlocks(text: string): string[] {
  const blocks: string[] = [];
  const fence = /```(?:python|py|ipython)?[ \t]*\r?\n([\s\S]*?)```/g;
  let end = 0;
  const add = (raw: string) => {
    const trimmed = raw.replace(/\s+$/, '');
    // A block of nothing but answer lines is the answer (below); in code,
    // such a line is a guess.
    const code = isAnswerLines(trimmed)
      ? trimmed
      : withoutGuessLines(trimmed).replace(/\s+$/, '');
    if (code.trim() && !isAnswerLines(code)) {
      blocks.push(code);
    }
  };
  for (let match = fence.exec(text); match; match = fence.exec(text)) {
    add(match[1]);
    end = match.index + match[0].length;
  }
  // A last block left open (the reply hit its length limit, or a small
  // model stopped there: SmolLM2-135M does) is code all the same.
  const open = /```(?:python|py|ipython)?[ \t]*\r?\n([\s\S]*)$/.exec(
    text.slice(end)
  );
  if (open && !open[1].includes('```')) {
    add(open[1]);
  }
  return blocks;
}

/**
 * `text` without the first fenced block whose code is `code` (the text
 * protocol's answer block that became a call): the transcript then shows
 * that code once, on its card. The model's own message keeps it.
 */
export function withoutCodeBlock(text: string, code: string): string {
  const fence = /```(?:python|py|ipython)?[ \t]*\r?\n([\s\S]*?)```/g;
  for (let match = fence.exec(text); match; match = fence.exec(text)) {
    const block = match[1].replace(/\s+$/, '');
    if (
      block === code ||
      withoutGuessLines(block).replace(/\s+$/, '') === code
    ) {
      const before = text.slice(0, match.index).replace(/\s+$/, '');
      const after = text
        .slice(match.index + match[0].length)
        .replace(/^\s+/, '');
      return before && after ? `${before}\n\n${after}` : before || after;
    }
  }
  return text;
}
