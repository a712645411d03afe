/**
 * Whether the numbers a text states were computed: the numbers of an
 * answer (or of a notebook's summary) against the texts that could back
 * them (outputs, observations, the user's own words). A number is backed
 * when some evidence number rounds (or truncates) to it, directly, as a
 * percentage of a fraction, or in thousands, millions or billions.
 *
 * Single-digit integers are not checked (counts, ordinals, "step 2"): too
 * common to be claims, too often unprinted. Numbers inside code (fenced or
 * inline), inside words or identifiers (`x2`, `Q3`, a cell id) and list or
 * heading numbering are not claims either.
 */
import type { ChatMessage } from '../types';
import { withinBudget } from './text';

/** A number as the text states it. */
interface IStated {
  text: string;
  value: number;
  decimals: number;
}

/** How much text of the evidence is scanned, at most (outputs can be huge). */
const EVIDENCE_BUDGET = 2_000_000;

/** A number with optional thousands separators, decimals and percent. */
const STATED =
  /(?<![\w.])-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?%?(?![\w])/g;

/** Any number in evidence (identifiers and all: evidence is not judged). */
const ANY_NUMBER = /\d+(?:,\d{3})*(?:\.\d+)?(?:[eE][-+]?\d+)?/g;

/** The numbers `text` states as claims (see the module's doc), in order, once each. */
export function statedNumbers(text: string): string[] {
  return [...new Set(stated(text).map(n => n.text))];
}

/**
 * The numbers `text` states that no text of `evidence` backs, in order,
 * once each; empty when every claim is backed.
 */
export function unsupportedNumbers(
  text: string,
  evidence: ReadonlyArray<string>
): string[] {
  const claims = stated(text);
  if (!claims.length) {
    return [];
  }
  const backing = evidenceNumbers(evidence);
  const missing = claims.filter(claim => !isBacked(claim, backing));
  return [...new Set(missing.map(n => n.text))];
}

function stated(text: string): IStated[] {
  const prose = text
    .replace(/```[\s\S]*?(```|$)/g, ' ')
    .replace(/`[^`\n]*`/g, ' ')
    // List and heading numbering: "1. Load", "2) Clean", "## 3. Model".
    .replace(/^(\s*(?:#+\s*)?)\d+[.)](?=\s)/gm, '$1');
  const numbers: IStated[] = [];
  for (const match of prose.matchAll(STATED)) {
    const raw = match[0];
    const plain = raw.replace(/%$/, '').replace(/,/g, '');
    const value = Math.abs(Number(plain));
    if (!Number.isFinite(value)) {
      continue;
    }
    const decimals = /\.(\d+)/.exec(plain.split(/[eE]/)[0])?.[1].length ?? 0;
    if (decimals === 0 && !/[eE%]/.test(raw) && value < 10) {
      continue;
    }
    numbers.push({ text: raw, value, decimals });
  }
  return numbers;
}

function evidenceNumbers(evidence: ReadonlyArray<string>): number[] {
  const values = new Set<number>();
  for (const part of withinBudget(evidence, EVIDENCE_BUDGET)) {
    for (const match of part.matchAll(ANY_NUMBER)) {
      const value = Number(match[0].replace(/,/g, ''));
      if (Number.isFinite(value)) {
        values.add(value);
      }
    }
  }
  return [...values];
}

/** Whether some evidence number, rounded or truncated as the claim is, gives it. */
function isBacked(claim: IStated, backing: ReadonlyArray<number>): boolean {
  // One unit of the claim's last digit either way: rounding and truncation.
  const unit = 10 ** -claim.decimals;
  const near = (value: number) =>
    Math.abs(value - claim.value) < unit * (1 + 1e-9);
  const scales = [1, 100, 1e-3, 1e-6, 1e-9];
  return backing.some(value => scales.some(scale => near(value * scale)));
}

/**
 * The outputs (tool messages) of `messages`, with the numbers that their
 * code-running calls typed in blanked (`withoutTypedNumbers`).
 */
export function computedOutputs(
  messages: ReadonlyArray<ChatMessage>,
  isRun: (call: { name: string; arguments: string }) => boolean
): string[] {
  const code = messages.flatMap(m =>
    m.role === 'assistant'
      ? (m.toolCalls ?? [])
          .filter(call => isRun(call))
          .flatMap(call => stringValues(call.arguments))
      : []
  );
  const typed = typedValues(code);
  return messages.flatMap(m =>
    m.role === 'tool' ? [withoutTypedNumbers(m.content, typed)] : []
  );
}

/** The string values of a call's JSON arguments (its code, for the tools that run code). */
function stringValues(json: string): string[] {
  try {
    const parsed: unknown = JSON.parse(json);
    return parsed && typeof parsed === 'object'
      ? Object.values(parsed).filter((v): v is string => typeof v === 'string')
      : [];
  } catch {
    return [];
  }
}

/** A numeric literal in code: not part of a name (`x2`) or a longer number. */
const CODE_LITERAL = /(?<![\w.])\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w.])/g;

/** The values of the numeric literals that `code` types in (two digits or more, or with decimals). */
export function typedValues(code: ReadonlyArray<string>): Set<number> {
  const values = new Set<number>();
  for (const text of code) {
    for (const match of text.matchAll(CODE_LITERAL)) {
      const value = Number(match[0]);
      // `head(5)`, `round(x, 2)`: single digits are no claims either.
      if (Number.isFinite(value) && (value >= 10 || match[0].includes('.'))) {
        values.add(value);
      }
    }
  }
  return values;
}

/**
 * `output` with the numbers whose values are in `typed` blanked: what the
 * code printed because it was written into it (`total = 10000000.00;
 * print(total)`) backs no claim.
 */
export function withoutTypedNumbers(
  output: string,
  typed: ReadonlySet<number>
): string {
  if (!typed.size) {
    return output;
  }
  return output.replace(ANY_NUMBER, number =>
    typed.has(Number(number.replace(/,/g, ''))) ? ' ' : number
  );
}

/**
 * The numbers the final answer of a turn states without anything having
 * computed them: when the turn ran no code (`isRun` tells the calls that
 * run code), those no observation or user message shows; when it ran
 * code, those only shown by outputs of code that typed them in
 * (`print(42)`). A number no output shows after code ran is left alone:
 * a capable model may work it out from several outputs.
 * `messages[turnStart]` is the turn's user message.
 */
export function uncomputedNumbers(
  messages: ReadonlyArray<ChatMessage>,
  turnStart: number,
  isRun: (call: { name: string; arguments: string }) => boolean
): string[] {
  const last = messages[messages.length - 1];
  if (last?.role !== 'assistant' || last.toolCalls?.length || !last.content) {
    return [];
  }
  const ranCode = messages
    .slice(turnStart)
    .some(m => m.role === 'assistant' && m.toolCalls?.some(c => isRun(c)));
  const userWords = messages.flatMap(m =>
    m.role === 'user' ? [m.content] : []
  );
  const outputs = messages.flatMap(m => (m.role === 'tool' ? [m.content] : []));
  const unshown = unsupportedNumbers(last.content, [...outputs, ...userWords]);
  if (!ranCode) {
    return unshown;
  }
  const computed = computedOutputs(messages, isRun);
  return unsupportedNumbers(last.content, [...computed, ...userWords]).filter(
    number => !unshown.includes(number)
  );
}
