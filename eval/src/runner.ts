/**
 * Runs a task set headless: one Jupyter server (a private one, or the one
 * given with --server: eval-server.ts), one notebook and
 * kernel per task (in the task's own folder, with its files), the real
 * agent loop against a model endpoint, tasks in parallel with a per-task
 * timeout, then the task's checker in the final kernel.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { uncomputedNumbers } from '../../src/agent/context/claims';
import { arrayConversation } from '../../src/agent/loop/conversation';
import { runAgent } from '../../src/agent/loop/run-agent';
import { DEFAULT_CONTEXT_TOKENS } from '../../src/agent/loop/run-config';
import { addAndRunCell } from '../../src/agent/loop/code-block-tools';
import type { ModelProfile } from '../../src/agent/model/capabilities';
import type { IModelClient } from '../../src/agent/model/types';
import { prepareRun } from '../../src/agent/session/run-setup';
import { agentTools } from '../../src/agent/tools/all-tools';
import { ToolRegistry, type ITool } from '../../src/agent/tools/registry';
import { smallModelTools } from '../../src/agent/tools/small-model-tools';
import type { ChatMessage, IToolCall } from '../../src/agent/types';
import { ServerNotebookPort } from '../../src/headless/server-port/server-port';
import { runChecker } from './checkers';
import {
  openEvalServer,
  type IEvalServer,
  type IGivenServer
} from './eval-server';
import { MeteredModel } from './metered-model';
import { runPlainLoop } from './plain-loop';
import { seededCellIds } from './seeded-ids';
import { answerNames, wantsAnswer, type ITask, type ITaskSet } from './task';

/** How to run a task set. */
export interface IRunOptions {
  /** Makes the model client for one task (a fresh one per task). */
  model: () => IModelClient;
  /** Tasks run at once (default 2). */
  concurrency?: number;
  /** Per-task limit in seconds (default 300; a task may override it). */
  timeoutS?: number;
  /** Model calls per task (default 20; a task may override it). */
  maxSteps?: number;
  /** The model's context window in tokens (default: the loop's). */
  contextTokens?: number;
  /** `text`: fenced code blocks instead of tool calls (small models). */
  protocol?: 'native' | 'text';
  /** The prompt profile, as the sidebar would choose it (default standard). */
  profile?: ModelProfile;
  /** Small profile, native protocol: ask for `tool_choice: required` first (default true). */
  forceFirstCall?: boolean;
  /** `plain`: the one-tool interpreter loop of plain-loop.ts, for comparison. */
  agent?: 'agent' | 'plain';
  /**
   * A running Jupyter server to work on (its notebooks and kernels), in
   * place of a private one started for the run.
   */
  server?: IGivenServer;
  /** Names the run's folder on a given server (default: the start time). */
  runId?: string;
  /** Where executed notebooks are copied (optional). */
  notebooksDir?: string;
  /** Called as each task finishes. */
  onResult?: (result: ITaskResult) => void;
}

/** The outcome of one task. */
export interface ITaskResult {
  id: string;
  category?: string;
  success: boolean;
  /** The checker's explanation. */
  detail: string;
  /** How the agent's run ended (completed, step-limit, timeout, error, …). */
  end: string;
  steps: number;
  toolCalls: number;
  /** Model calls that asked for tools (every step but the final answer). */
  toolSteps: number;
  /** Cells the agent ran (run_cell, insert_cell with run: true, a text-protocol block). */
  cellsRun: number;
  promptTokens: number;
  completionTokens: number;
  /** The endpoint reported no usage for some turns: tokens are estimates. */
  tokensEstimated: boolean;
  wallS: number;
  /** The first model request's prompt tokens (estimated when not reported). */
  firstPromptTokens?: number | null;
  /** Milliseconds from the first request to its first streamed token. */
  firstTokenMs?: number | null;
  /** The agent's final message, clipped. */
  answer: string;
  /**
   * Numbers the final answer states that nothing computed (the run ran no
   * code and no observation shows them): the sidebar marks such an answer
   * "not computed in the notebook".
   */
  notComputed: string[];
  error?: string;
}

/** Run every task of `set`; results come back in the set's order. */
export async function runTaskSet(
  set: ITaskSet,
  options: IRunOptions
): Promise<ITaskResult[]> {
  const server = await openEvalServer(
    options.server,
    options.runId ?? new Date().toISOString().replace(/[:.]/g, '-')
  );
  try {
    const results = new Array<ITaskResult>(set.tasks.length);
    let next = 0;
    const worker = async () => {
      while (next < set.tasks.length) {
        const index = next++;
        const result = await runTask(set, set.tasks[index], server, options);
        results[index] = result;
        options.onResult?.(result);
      }
    };
    const lanes = Math.max(
      1,
      Math.min(options.concurrency ?? 2, set.tasks.length)
    );
    await Promise.all(Array.from({ length: lanes }, worker));
    return results;
  } finally {
    await server.dispose();
  }
}

/** The user's message: the prompt, the files, and how to report the answer. */
export function taskPrompt(task: ITask): string {
  const lines = [task.prompt.trim()];
  if (task.files?.length) {
    lines.push(
      '',
      `Files in the notebook's folder: ${task.files.map(f => basename(f)).join(', ')}.`
    );
  }
  const names = answerNames(task.checker);
  if (names.length) {
    lines.push(
      '',
      `Finish your final message with the answers written as ${names.map(n => `@${n}[value]`).join(', ')}.`
    );
  } else if (wantsAnswer(task.checker)) {
    lines.push(
      '',
      'Finish your final message with one line `ANSWER: <value>` holding only the value.'
    );
  }
  return lines.join('\n');
}

async function runTask(
  set: ITaskSet,
  task: ITask,
  server: IEvalServer,
  options: IRunOptions
): Promise<ITaskResult> {
  const started = Date.now();
  const result: ITaskResult = {
    id: task.id,
    category: task.category,
    success: false,
    detail: '',
    end: 'not-started',
    steps: 0,
    toolCalls: 0,
    toolSteps: 0,
    cellsRun: 0,
    promptTokens: 0,
    completionTokens: 0,
    tokensEstimated: false,
    wallS: 0,
    answer: '',
    notComputed: []
  };
  let port: ServerNotebookPort | null = null;
  try {
    const folder = await server.prepareTask(
      task.id,
      (task.files ?? []).map(file => join(set.dataDir ?? '.', file))
    );
    const path = `${folder}/${task.id}.ipynb`;
    port = await ServerNotebookPort.open({
      serverSettings: server.settings,
      path,
      createIfMissing: true,
      newCellId: seededCellIds(task.id)
    });
    for (const source of task.setup_cells ?? []) {
      await port.insertCell({ type: 'code', source });
    }
    const messages = await runAgentOnTask(task, port, options, result);
    if (options.notebooksDir) {
      // What the model read and wrote, to see why a task failed.
      const dir = join(options.notebooksDir, '..', 'transcripts');
      await mkdir(dir, { recursive: true });
      await writeFile(
        join(dir, `${task.id}.json`),
        JSON.stringify(messages, null, 1)
      );
    }
    const finalText = result.answer;
    const verdict = await runChecker(task.checker, {
      finalText,
      notebook: port,
      expected: set.expected ?? {}
    });
    result.success = verdict.pass;
    result.detail = verdict.detail;
    await port.save();
    if (options.notebooksDir) {
      await mkdir(options.notebooksDir, { recursive: true });
      await writeFile(
        join(options.notebooksDir, `${task.id}.ipynb`),
        await server.readNotebook(path)
      );
    }
  } catch (error) {
    result.error = error instanceof Error ? error.message : String(error);
    result.detail ||= `harness error: ${result.error}`;
  } finally {
    await port?.close({ shutdownKernel: true }).catch(() => undefined);
    result.wallS = (Date.now() - started) / 1000;
  }
  return result;
}

/** The agent's run, bounded by the task's timeout; fills `result`. */
async function runAgentOnTask(
  task: ITask,
  port: ServerNotebookPort,
  options: IRunOptions,
  result: ITaskResult
): Promise<ChatMessage[]> {
  const protocol = options.protocol ?? 'native';
  const meter = new MeteredModel(options.model());
  // The run is set up as the sidebar sets it up (session/run-setup.ts).
  const setup = prepareRun(
    {
      tools: new ToolRegistry(agentTools()),
      smallTools: new ToolRegistry(smallModelTools()),
      profile: () => options.profile ?? 'standard',
      toolProtocol: () => protocol,
      // The report names the protocol: it is kept, whatever the server does.
      toolProtocolChosen: () => true
    },
    meter,
    port.path,
    new ToolRegistry([addAndRunCell] as ITool<never>[])
  );
  const { tools } = setup;
  const messages: ChatMessage[] = [
    setup.system,
    { role: 'user', content: taskPrompt(task) }
  ];
  const calls = new Map<string, IToolCall>();
  const controller = new AbortController();
  const timeoutMs = (task.timeout_s ?? options.timeoutS ?? 300) * 1000;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  try {
    if (options.agent === 'plain') {
      const plain = await runPlainLoop({
        model: meter,
        notebook: port,
        prompt: taskPrompt(task),
        protocol,
        maxSteps: task.max_steps ?? options.maxSteps ?? 20,
        signal: controller.signal
      });
      messages.splice(0, messages.length, ...plain.messages);
      Object.assign(result, {
        steps: plain.steps,
        cellsRun: plain.cellsRun,
        toolCalls: plain.cellsRun,
        toolSteps: plain.toolSteps,
        end: timedOut ? 'timeout' : 'completed'
      });
    } else {
      const outcome = await runAgent(
        {
          ...setup,
          computeFirst: setup.computeFirst && {
            ...setup.computeFirst,
            forceFirstCall: options.forceFirstCall
          },
          approvalMode: 'run-everything',
          maxSteps: task.max_steps ?? options.maxSteps ?? 20,
          contextTokens: options.contextTokens ?? DEFAULT_CONTEXT_TOKENS
        },
        {
          notebook: port,
          conversation: arrayConversation(messages),
          signal: controller.signal,
          onEvent: event => {
            if (event.type === 'tool-call') {
              result.toolCalls += 1;
              calls.set(event.call.id, event.call);
            } else if (event.type === 'tool-result') {
              const call = calls.get(event.callId);
              // A cell ran: a call that runs code, on a cell (not scratch code).
              if (call && event.result.cellId && tools.runsCode(call)) {
                result.cellsRun += 1;
              }
            }
          }
        }
      );
      result.steps = outcome.steps;
      result.toolSteps = messages.filter(
        m => m.role === 'assistant' && !!m.toolCalls?.length
      ).length;
      result.end = timedOut ? 'timeout' : outcome.reason;
      if (outcome.error) {
        result.error = outcome.error.message;
      }
    }
  } finally {
    clearTimeout(timer);
    result.promptTokens = meter.promptTokens;
    result.completionTokens = meter.completionTokens;
    result.tokensEstimated = meter.estimated;
    result.firstPromptTokens = meter.firstPromptTokens;
    result.firstTokenMs = meter.firstTokenMs;
  }
  result.notComputed = uncomputedNumbers(messages, 1, call =>
    tools.runsCode(call)
  );
  const last = messages[messages.length - 1];
  result.answer =
    last.role === 'assistant' && !last.toolCalls?.length
      ? (last.content ?? '')
      : '';
  return messages;
}
