/**
 * The conversation as a model without tool calls reads it (the text
 * protocol, ./text-protocol-client.ts): the instructions added to the
 * system prompt, a tool's result as a user message of output, and for small
 * models the request restated under each output, the fix asked for under
 * each error and the guesses written after code left out. Pure: it reads
 * messages and returns messages.
 */
import { describeFailure } from '../context/failure-focus';
import {
  allValuesMissing,
  MISSING_VALUES_REQUEST
} from '../context/missing-values';
import {
  multipliedSums,
  multipliedSumsRequest,
  type IMultipliedSums
} from '../context/multiplied-sums';
import {
  isCleanRunObservation,
  isErrorObservation
} from '../context/observations';
import type { ChatMessage } from '../types';
import { withoutGuessLines } from './code-blocks';

/** Appended to the system prompt. */
export const TEXT_PROTOCOL_INSTRUCTIONS = [
  'You cannot call tools. To run Python in the notebook’s kernel, write it in a fenced block:',
  '```python',
  'print(df.describe())',
  '```',
  'Each block is added to the notebook as a new cell and run; its output is sent back to you.',
  'Write one block per reply, then stop and wait for the output.',
  'When the task is done, answer without any code block.'
].join('\n');

/** How much of the user's request an observation restates, at most. */
const RESTATED_CHARS = 600;

/**
 * The user's request, restated under an output for a small model: after a
 * page of output it has lost the question and the form of answer asked for
 * (measured with Qwen2.5-Coder-1.5B: right values, answered without the
 * asked-for `ANSWER:` line, or a next block that recomputed something else).
 */
export function restatement(request: string): string {
  return (
    requestText(request) +
    'If the output answers it, reply now in words with the printed values, in the form the request asks for, ' +
    'and no code block; otherwise write the next ```python block.'
  );
}

/**
 * Whether a clean run's observation prints only missing values (its first
 * line says how the run went and is not output).
 */
function printsOnlyMissing(observation: string): boolean {
  return (
    isCleanRunObservation(observation) &&
    allValuesMissing(observation.slice(observation.indexOf('\n') + 1))
  );
}

/**
 * The code a reply ran, as the text protocol's calls carry it (their
 * `source` argument); '' when they carry none.
 */
function codeOfCalls(
  calls: ReadonlyArray<{ arguments: string }> | undefined
): string {
  return (calls ?? [])
    .map(call => {
      try {
        const source = (JSON.parse(call.arguments) as { source?: unknown })
          ?.source;
        return typeof source === 'string' ? source : '';
      } catch {
        return '';
      }
    })
    .join('\n');
}

/** The request, quoted (cut when long); '' when there is none. */
function requestText(request: string): string {
  if (!request) {
    return '';
  }
  const text =
    request.length > RESTATED_CHARS
      ? `${request.slice(0, RESTATED_CHARS)}…`
      : request;
  return `The request you are working on:\n"""\n${text.trim()}\n"""\n`;
}

/** Under an error, for small models: the next reply is the fix. */
export const FIX_REQUEST =
  'The code failed. Reply with the corrected code in one ```python block.';

/**
 * The fix asked for under an error, naming the error and the line that led
 * there when the output shows them (context/failure-focus.ts).
 */
export function fixRequest(observation: string): string {
  const failure = describeFailure(observation);
  return failure
    ? `The code ${failure}\nReply with the corrected code in one \`\`\`python block.`
    : FIX_REQUEST;
}

/**
 * A reply that runs code, as the model sees it later: its code, without the
 * words after the last block. Those were written before any output came, so
 * they are a guess (small models write `ANSWER: <made-up value>` there), and
 * shown back they were repeated as the answer over the real output
 * (Qwen2.5-Coder-1.5B: printed 0.9922, answered its earlier -0.4526).
 */
export function withoutTextAfterCode(text: string): string {
  const end = text.lastIndexOf('```');
  if (end < 0 || (text.match(/```/g) ?? []).length % 2) {
    return text;
  }
  return text.slice(0, end + 3);
}

/** Options of the text protocol. */
export interface ITextProtocolOptions {
  /**
   * For small models: restate the user's request under each output, name
   * the failure under each error, and drop the guesses written after code.
   */
  restateRequest?: boolean;
}

/** The conversation as a model without tools sees it. */
export function toTextProtocol(
  messages: ChatMessage[],
  options: ITextProtocolOptions = {}
): ChatMessage[] {
  const out: ChatMessage[] = [];
  let request = '';
  // Output messages and the request they answer, for the restatement.
  const outputs: Array<{
    message: ChatMessage;
    request: string;
    failed: string | null;
    missing: boolean;
    product: IMultipliedSums | null;
  }> = [];
  // The code of the last reply that ran some, for the output it printed.
  let code = '';
  for (const message of messages) {
    if (message.role === 'system') {
      out.push({
        role: 'system',
        content: `${message.content}\n\n${TEXT_PROTOCOL_INSTRUCTIONS}`
      });
    } else if (message.role === 'assistant') {
      const content = message.content ?? '';
      if (message.toolCalls?.length) {
        code = codeOfCalls(message.toolCalls);
      }
      out.push({
        role: 'assistant',
        content:
          options.restateRequest && message.toolCalls?.length
            ? withoutGuessLines(withoutTextAfterCode(content))
            : content
      });
    } else if (message.role === 'tool') {
      const last = out[out.length - 1];
      // A refusal ("Not run: …") is not output of the code.
      const text = message.content.startsWith('Not run:')
        ? message.content
        : `Output of the code you ran:\n${message.content}`;
      if (last?.role === 'user' && last.observation) {
        last.content += `\n\n${text}`;
      } else {
        const output: ChatMessage = {
          role: 'user',
          observation: true,
          content: text
        };
        out.push(output);
        outputs.push({
          message: output,
          request,
          failed: isErrorObservation(message.content) ? message.content : null,
          missing: printsOnlyMissing(message.content),
          product: isCleanRunObservation(message.content)
            ? multipliedSums(code)
            : null
        });
      }
    } else {
      if (message.role === 'user' && !message.observation) {
        request = message.content;
      }
      out.push({ ...message });
    }
  }
  if (options.restateRequest) {
    for (const {
      message,
      request: asked,
      failed,
      missing,
      product
    } of outputs) {
      if (message.role !== 'user') {
        continue;
      }
      // After an error, the request restated was copied back word for word
      // (Qwen2.5-Coder-1.5B); what helps there is asking for the fix.
      if (failed) {
        message.content += `\n\n${fixRequest(failed)}`;
      } else if (missing) {
        // "If the output answers it, reply now" made a column of NaN the answer.
        message.content += `\n\n${requestText(asked)}${MISSING_VALUES_REQUEST}`;
      } else if (product) {
        // Printed values that look like an answer and are not one.
        message.content += `\n\n${requestText(asked)}${multipliedSumsRequest(product)}`;
      } else if (asked) {
        message.content += `\n\n${restatement(asked)}`;
      }
    }
  }
  return out;
}
