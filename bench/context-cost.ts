/**
 * Context cost: prompt tokens sent per step over a 10-step scripted task on
 * a 40-cell notebook with DataFrames and plots, and how much of each request
 * is an unchanged prefix of the previous one (prompt-cache friendliness).
 *
 * The notebook is a FakeNotebook whose cells carry real kernel outputs (the
 * golden fixtures recorded from ipykernel: a 1000 × 5 DataFrame, a
 * matplotlib PNG, a traceback, a progress bar). The model is scripted: nine
 * tool turns (read_notebook, read_cell, inspect_variables, insert_cell,
 * run_cell, insert_cell, run_cell, run_code, read_output) and an answer,
 * through the real runAgent loop and tools. Each request is serialized as
 * the OpenAI wire format (tools, then messages; src/agent/model/
 * openai-client.ts) and its tokens estimated at 4 characters per token
 * (src/agent/context/history.ts; no tokenizer here).
 *
 * For each step: estimated prompt tokens, the characters shared with the
 * previous request as a prefix (share of this request), and whether the
 * previous request is a prefix of this one ("stable"). Run for several
 * context windows: the default (32k tokens) and small ones where fitHistory
 * must elide old tool outputs.
 * Near the window the loop asks the same model once for a summary of the
 * older steps (src/agent/context/summary.ts): that request is counted like
 * the others (marked "summary"); the scripted model answers it with a fixed
 * summary of what the steps showed.
 * Target: ≥ 90 % of requests prefix-stable.
 *
 * Run: npx tsx bench/context-cost.ts [WINDOW…]   (default 32768 9216 8192)
 */
import {
  fixtureOutputs,
  loadFixture
} from '../src/agent/__tests__/fixtures/load-outputs';
import { estimateTokens } from '../src/agent/context/history';
import { isSummaryRequest } from '../src/agent/context/summary';
import { systemPrompt } from '../src/agent/context/system-prompt';
import { runAgent } from '../src/agent/loop/run-agent';
import { arrayConversation } from '../src/agent/loop/conversation';
import { runConfig } from '../src/agent/loop/run-config';
import { toOpenAIMessages } from '../src/agent/model/openai-client';
import type {
  IChatChunk,
  IChatRequest,
  IModelClient
} from '../src/agent/model/types';
import type { CellOutput, ICellSnapshot } from '../src/agent/ports';
import { FakeNotebook } from '../src/agent/testing/fake-notebook';
import {
  ScriptedModel,
  type ScriptedTurn
} from '../src/agent/testing/scripted-model';
import { agentTools } from '../src/agent/tools/all-tools';
import { ToolRegistry } from '../src/agent/tools/registry';
import type { ChatMessage } from '../src/agent/types';
import { fixed, print, runMain, target } from './lib/report';

const WINDOWS =
  process.argv.length > 2
    ? process.argv.slice(2).map(Number)
    : [32768, 9216, 8192];
const TARGET_STABLE = 90;

const outputs = (name: string): CellOutput[] =>
  fixtureOutputs(loadFixture(name));

/** 40 cells: markdown, DataFrame, plot and text cells, all run in order. */
function fortyCells(): Array<Partial<ICellSnapshot>> {
  const frame = outputs('dataframe-1000x5');
  const plot = outputs('matplotlib-png');
  const progress = outputs('tqdm-progress');
  return Array.from({ length: 40 }, (_, i) => {
    const id = `c${String(i + 1).padStart(2, '0')}`;
    const count = i + 1;
    switch (i % 4) {
      case 0:
        return {
          id,
          type: 'markdown',
          source: `## Section ${i / 4 + 1}\nLoad, clean and plot part ${i / 4 + 1}.`
        };
      case 1:
        return {
          id,
          source: `df${i} = pd.read_csv("part${i}.csv")\ndf${i}`,
          executionCount: count,
          outputs: frame
        };
      case 2:
        return {
          id,
          source: `df${i - 1}.plot(x="a", y="b")\nplt.show()`,
          executionCount: count,
          outputs: plot
        };
      default:
        return {
          id,
          source: `for _ in tqdm(range(100)):\n    step()`,
          executionCount: count,
          outputs: progress
        };
    }
  });
}

/** What the fake kernel outputs for a piece of code. */
function execute(source: string): CellOutput[] {
  if (source.includes('_notebook_agent_inspect')) {
    const rows = Array.from({ length: 10 }, (_, i) => ({
      name: `df${4 * i + 1}`,
      type: 'DataFrame',
      shape: [1000, 5],
      repr: 'DataFrame 1000×5'
    }));
    return [{ type: 'stream', name: 'stdout', text: JSON.stringify(rows) }];
  }
  if (source.includes('.plot(')) {
    return outputs('matplotlib-png');
  }
  if (source.includes('groupby')) {
    return outputs('dataframe-1000x5');
  }
  return [{ type: 'stream', name: 'stdout', text: '4821.5\n' }];
}

/** The ten scripted turns (the fake notebook names new cells cell-1, …). */
function script(): ScriptedTurn[] {
  const call = (
    name: string,
    args: Record<string, unknown>,
    text?: string
  ): ScriptedTurn => ({
    text,
    toolCalls: [{ name, arguments: args }]
  });
  return [
    call(
      'read_notebook',
      {},
      '1. Read the notebook. 2. Summarise by group. 3. Plot it.'
    ),
    call('read_cell', { cell_id: 'c38' }),
    call('inspect_variables', {}),
    call('insert_cell', {
      source: 'summary = df37.groupby("a").sum()\nsummary',
      after_cell_id: 'c40'
    }),
    call('run_cell', { cell_id: 'cell-1' }),
    call('insert_cell', {
      source: 'summary.plot(x="a", y="b")\nplt.show()',
      after_cell_id: 'cell-1'
    }),
    call('run_cell', { cell_id: 'cell-2' }),
    call('run_code', { code: 'print(summary["b"].max())' }),
    call('read_output', { cell_id: 'cell-1', offset: 4000 }),
    {
      text: 'The largest group total of `b` is **4821.5**; the plot is in the new cell below.'
    }
  ];
}

/** What the scripted model answers a summary request with (~130 words). */
const SUMMARY =
  'The user asked to summarise df37 by column a, plot the totals and report the largest. ' +
  'read_notebook showed 40 cells: 10 markdown section headers, and for each part a cell ' +
  'loading dfN from partN.csv (a DataFrame of 1000 rows × 5 columns a–e), a cell plotting ' +
  'dfN with x="a", y="b", and a tqdm loop over 100 steps. All 40 cells had run in order ' +
  '(execution counts 1–40); none failed. read_cell c38 showed the plot of df37. ' +
  'inspect_variables listed df1, df5, … df37 as DataFrames of shape (1000, 5). ' +
  'Plan: 1. group df37 by a and sum; 2. plot the totals; 3. report the largest total of b. ' +
  'Nothing has been inserted or run yet.';

/**
 * The scripted task's model, answering summary requests with SUMMARY, and
 * recording every request in order (steps and summaries).
 */
class SummarisingModel implements IModelClient {
  readonly model = 'scripted';
  readonly requests: IChatRequest[] = [];
  readonly summaries = new Set<number>();

  constructor(private readonly _steps: ScriptedModel) {}

  async *streamChat(
    request: IChatRequest,
    signal: AbortSignal
  ): AsyncIterable<IChatChunk> {
    this.requests.push(JSON.parse(JSON.stringify(request)) as IChatRequest);
    if (isSummaryRequest(request)) {
      this.summaries.add(this.requests.length - 1);
      yield* new ScriptedModel([{ text: SUMMARY }]).streamChat(request, signal);
      return;
    }
    yield* this._steps.streamChat(request, signal);
  }
}

/** A request as the OpenAI client would send it (tools first, then messages). */
function wire(request: IChatRequest): string {
  return JSON.stringify({
    tools: request.tools,
    messages: toOpenAIMessages(request.messages)
  });
}

function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) {
    i++;
  }
  return i;
}

/** Previous request's messages are all, unchanged, at the start of this one. */
function prefixStable(prev: IChatRequest, cur: IChatRequest): boolean {
  const a = toOpenAIMessages(prev.messages);
  const b = toOpenAIMessages(cur.messages);
  return (
    JSON.stringify(prev.tools) === JSON.stringify(cur.tools) &&
    a.length <= b.length &&
    a.every((m, i) => JSON.stringify(m) === JSON.stringify(b[i]))
  );
}

async function measure(window: number): Promise<void> {
  const notebook = new FakeNotebook({
    path: 'analysis.ipynb',
    cells: fortyCells(),
    execute
  });
  const model = new SummarisingModel(new ScriptedModel(script()));
  const tools = new ToolRegistry(agentTools());
  const messages: ChatMessage[] = [
    {
      role: 'system',
      content: systemPrompt({
        notebookPath: notebook.path,
        toolNames: tools.specs.map(t => t.name)
      })
    },
    {
      role: 'user',
      content: 'Summarise df37 by a, plot the totals and tell me the largest.'
    }
  ];
  const outcome = await runAgent(
    runConfig({
      model,
      tools,
      approvalMode: 'run-everything',
      contextTokens: window
    }),
    {
      notebook,
      conversation: arrayConversation(messages),
      signal: new AbortController().signal,
      onEvent: () => undefined
    }
  );
  print(
    `\ncontext window ${window} tokens: run ${outcome.reason} after ${outcome.steps} steps`
  );
  print('request  prompt tokens  new tokens  shared prefix  stable');
  let stable = 0;
  let total = 0;
  let steps = 0;
  model.requests.forEach((request, i) => {
    const text = wire(request);
    const tokens = estimateTokens(text);
    total += tokens;
    const label = model.summaries.has(i) ? 'summary' : `step ${++steps}`;
    if (i === 0) {
      print(
        `${label.padStart(7)}  ${String(tokens).padStart(13)}  ${String(tokens).padStart(10)}  ${'—'.padStart(13)}  —`
      );
      return;
    }
    const prev = model.requests[i - 1];
    const shared = commonPrefix(wire(prev), text);
    const ok = prefixStable(prev, request);
    stable += ok ? 1 : 0;
    print(
      `${label.padStart(7)}  ${String(tokens).padStart(13)}  ${String(tokens - estimateTokens(text.slice(0, shared))).padStart(10)}  ${`${fixed((100 * shared) / text.length, 1)} %`.padStart(13)}  ${ok ? 'yes' : 'NO'}`
    );
  });
  const pairs = model.requests.length - 1;
  print(
    `total prompt tokens over ${model.requests.length} requests (${model.summaries.size} summary): ${total}; prefix-stable ${stable}/${pairs}`
  );
  target(
    `window ${window}: prefix-stable requests`,
    (100 * stable) / pairs,
    TARGET_STABLE,
    'at-least',
    ' %'
  );
}

async function main(): Promise<void> {
  print(
    'tokens are estimated at 4 characters per token of the wire JSON (tools + messages)'
  );
  for (const window of WINDOWS) {
    await measure(window);
  }
}

runMain(main);
