/**
 * The comparison for the small-model profile: a plain interpreter loop of
 * the kind the literature describes, with none of the agent's machinery.
 * One tool (`execute_python`) or, with the text protocol, fenced code
 * blocks; a five-line system prompt; raw outputs as observations (text,
 * cut to 2,000 characters); the task ends at the first reply without code.
 * `npm run eval -- --agent plain` runs it on the same tasks and server.
 */
import { TurnAccumulator } from '../../src/agent/model/accumulator';
import type { IModelClient } from '../../src/agent/model/types';
import { extractCodeBlocks } from '../../src/agent/loop/code-blocks';
import type { CellOutput, INotebookPort } from '../../src/agent/ports';
import type { ChatMessage, IToolSpec } from '../../src/agent/types';

/** The loop's system prompt (five lines). */
export const PLAIN_SYSTEM_PROMPT = [
  'You are a data analyst with a Python interpreter (pandas, numpy, matplotlib).',
  'The working directory holds the files the user names.',
  'Run code to compute every value you report; never guess.',
  'Read the output, fix errors, and run again when needed.',
  'When done, answer the question.'
].join('\n');

const TOOL: IToolSpec = {
  name: 'execute_python',
  description: 'Run Python code and return its output.',
  parameters: {
    type: 'object',
    properties: { code: { type: 'string' } },
    required: ['code']
  }
};

/** What one run of the plain loop did. */
export interface IPlainOutcome {
  messages: ChatMessage[];
  steps: number;
  cellsRun: number;
  toolSteps: number;
}

/** Run the plain loop on `prompt` until a reply without code or `maxSteps`. */
export async function runPlainLoop(options: {
  model: IModelClient;
  notebook: INotebookPort;
  prompt: string;
  protocol: 'native' | 'text';
  maxSteps: number;
  signal: AbortSignal;
}): Promise<IPlainOutcome> {
  const { model, notebook, protocol, signal } = options;
  const messages: ChatMessage[] = [
    { role: 'system', content: PLAIN_SYSTEM_PROMPT },
    { role: 'user', content: options.prompt }
  ];
  const outcome = { messages, steps: 0, cellsRun: 0, toolSteps: 0 };
  while (outcome.steps < options.maxSteps && !signal.aborted) {
    outcome.steps += 1;
    const accumulator = new TurnAccumulator();
    const tools = protocol === 'native' ? [TOOL] : [];
    for await (const chunk of model.streamChat({ messages, tools }, signal)) {
      accumulator.add(chunk);
    }
    const turn = accumulator.result();
    const calls =
      protocol === 'native'
        ? turn.toolCalls.map(call => ({ id: call.id, code: codeOf(call) }))
        : extractCodeBlocks(turn.text).map(code => ({ id: '', code }));
    messages.push({
      role: 'assistant',
      content: turn.text || null,
      ...(protocol === 'native' && turn.toolCalls.length
        ? { toolCalls: turn.toolCalls }
        : {})
    });
    if (!calls.length) {
      break;
    }
    outcome.toolSteps += 1;
    for (const call of calls) {
      const cell = await notebook.insertCell({
        type: 'code',
        source: call.code
      });
      const run = await notebook.runCell(cell.id, { signal });
      outcome.cellsRun += 1;
      const output = rawText(run.outputs);
      messages.push(
        protocol === 'native'
          ? { role: 'tool', toolCallId: call.id, content: output }
          : { role: 'user', content: `Output:\n${output}` }
      );
    }
  }
  return outcome;
}

function codeOf(call: { arguments: string }): string {
  try {
    const args = JSON.parse(call.arguments) as { code?: unknown };
    return typeof args.code === 'string' ? args.code : call.arguments;
  } catch {
    return call.arguments;
  }
}

/** Outputs as plain text, cut to 2,000 characters. */
function rawText(outputs: CellOutput[]): string {
  const parts = outputs.map(output => {
    if (output.type === 'stream') {
      return output.text;
    }
    if (output.type === 'error') {
      return `${output.ename}: ${output.evalue}`;
    }
    const plain = output.data['text/plain'];
    return typeof plain === 'string' ? plain : '[non-text output]';
  });
  const text = parts.join('\n').trim() || '(no output)';
  return text.length > 2000 ? `${text.slice(0, 2000)}\n…` : text;
}
