/**
 * The agent loop: plan, act, observe, refine.
 *
 * A small driver over typed steps (steps.ts `NextStep`): it carries out
 * each step (stream the model, below; run or refuse tool calls,
 * tool-step.ts; send an answer back, remind of cells left running, stop)
 * and asks the pure functions of steps.ts and next-step.ts which step
 * comes next. Each step's items (turn-items.ts) go to the turn's
 * conversation and listeners in one place (`applyItem`); the run's
 * configuration comes whole (`RunConfig`). All cell changes of a turn are
 * one undo step.
 */
import { dataPreview } from '../context/data-preview';
import { isDataQuestion } from '../context/data-question';
import { KERNEL_PROBE, kernelNote } from '../context/kernel-variables';
import {
  frameDateColumns,
  previewDateColumns,
  timeHint
} from '../context/time-columns';
import { probeVariables } from '../tools/variables-probe';
import { TurnAccumulator, type IAssistantTurn } from '../model/accumulator';
import { describeModelError, isAbortError } from '../model/errors';
import { RETRY_TEMPERATURE } from '../model/sampling';
import { RunState } from '../tools/run-state';
import type {
  ChatMessage,
  IAgentError,
  IRunningCell,
  RunEndReason
} from '../types';
import { standsUncomputed } from './compute-check';
import { ContextKeeper } from './context-keeper';
import { applyItem } from './conversation';
import {
  cellsLeftRunning,
  reminderNotice,
  stillRunningReminder
} from './left-running';
import {
  afterAnswer,
  FRESH_MEMORY,
  shapeRequest,
  userText,
  type ILoopMemory,
  type IRequestShape
} from './next-step';
import {
  afterCalls,
  afterRunningCheck,
  afterTurn,
  nextRound,
  type NextStep
} from './steps';
import {
  FailureStreak,
  RepeatedSteps,
  runsOnlyComments
} from './stop-conditions';
import { refuseCalls, runCalls } from './tool-step';
import type { IRunContext, ITurn, RunConfig } from './run-config';
import type { AssistantMessage, TurnItem } from './turn-items';

export { DEFAULT_CONTEXT_TOKENS } from './run-config';

/** Tokens kept free for the tool schemas and the model's answer. */
const RESERVED_TOKENS = 6000;

/** Longest stretch of stream handling before giving the event loop a turn. */
const YIELD_EVERY_MS = 25;

/** How the run ended. */
export interface IRunOutcome {
  reason: RunEndReason;
  steps: number;
  error?: IAgentError;
  /** For `repeated-failure`: the failure that repeated. */
  detail?: string;
  /** Cells the agent ran that were still running when the run ended. */
  leftRunning?: IRunningCell[];
  /** The model's final answer, when the run ended with one. */
  answer?: string;
  /**
   * The small profile: that answer stands uncomputed (no code ran, or none
   * ran clean, for a question about data) after the repairs were spent.
   */
  uncomputed?: boolean;
}

/** Run one turn of the agent until it answers, is stopped, or runs out of steps. */
export async function runAgent(
  config: RunConfig,
  turn: ITurn
): Promise<IRunOutcome> {
  if (turn.undoGroup === false) {
    return loop(config, turn);
  }
  turn.notebook.beginUndoGroup();
  try {
    return await loop(config, turn);
  } finally {
    turn.notebook.endUndoGroup();
  }
}

async function loop(config: RunConfig, turn: ITurn): Promise<IRunOutcome> {
  const { tools } = config;
  // A turn that must write code, or words for a workflow, has no answer
  // for the small profile's checks to send back.
  const computeFirst =
    turn.scope?.codeOnly || turn.scope?.wordsOnly
      ? undefined
      : config.computeFirst;
  const { notebook, conversation, signal } = turn;
  const { run, prompt, asksData, context } = await startTurn(config, turn);
  const repeats = new RepeatedSteps();
  const round = () => ({
    steps,
    maxSteps: config.maxSteps,
    aborted: signal.aborted
  });
  let memory: ILoopMemory = FRESH_MEMORY;
  let steps = 0;
  let next: NextStep = nextRound(round());
  for (;;) {
    switch (next.kind) {
      case 'call-model': {
        // Within the window, the request is the history itself (a stable
        // prefix for prompt caching); near it, older steps are summarised
        // once; past it, older tool outputs are elided.
        steps += 1;
        const shaped = shapeRequest(
          memory,
          computeFirst,
          userText(conversation.messages[prompt])
        );
        memory = shaped.memory;
        const called = await callModel(
          run,
          () => context.request(conversation.messages),
          shaped.shape
        );
        if (called.kind === 'end') {
          next = called.stop;
          break;
        }
        applyItem(turn, called.reply);
        const { toolCalls } = called.turn;
        next = afterTurn({
          turn: called.turn,
          verdict: toolCalls.length
            ? repeats.record(toolCalls, call => tools.runsCode(call))
            : null,
          messages: conversation.messages,
          memory,
          computeFirst,
          commentsOnly: runsOnlyComments(tools, toolCalls)
        });
        break;
      }
      case 'answer':
        next = signal.aborted
          ? { kind: 'check-running' }
          : afterAnswer(memory, {
              messages: conversation.messages,
              prompt,
              runsCode: call => tools.runsCode(call),
              asksData,
              computeFirst
            });
        break;
      case 'send-back':
        memory = next.memory;
        if (next.guess) {
          conversation.markLastAsGuess();
        }
        applyItem(
          turn,
          { type: 'notice', text: next.notice },
          observationItem(next.text)
        );
        next = nextRound(round());
        break;
      case 'check-running': {
        // Looked for where a tool to wait with is offered, once.
        const cells =
          memory.reminded || !tools.offers(tool => !!tool.waitsForCells)
            ? []
            : await cellsLeftRunning(notebook, run.state);
        next = afterRunningCheck(cells, memory, signal.aborted);
        break;
      }
      case 'remind':
        memory = next.memory;
        applyItem(
          turn,
          { type: 'notice', text: reminderNotice(next.cells) },
          observationItem(stillRunningReminder(next.cells))
        );
        next = nextRound(round());
        break;
      case 'refuse-calls':
        applyItem(turn, ...refuseCalls(run.config, next.calls, next.refusal));
        if (next.stop) {
          next = { kind: 'stop', reason: next.stop };
        } else {
          memory = next.memory;
          next = nextRound(round());
        }
        break;
      case 'run-calls': {
        const repeated = await runCalls(run, next.calls);
        const target = turn.scope?.endAfterRun;
        const attempted =
          target !== undefined &&
          next.calls.some(
            call =>
              tools.runsCode(call) &&
              (target === true || tools.cellOfCall(call) === target)
          );
        next = attempted
          ? { kind: 'stop', reason: 'completed' }
          : afterCalls(repeated, run.failures.signature, round());
        break;
      }
      case 'stop':
        return end(
          run,
          { ...next, steps },
          () =>
            !!computeFirst &&
            standsUncomputed({
              messages: conversation.messages,
              prompt,
              runsCode: call => tools.runsCode(call),
              asksData,
              protocol: computeFirst.protocol
            })
        );
      default: {
        // Every step has its case: a step added without one fails the type
        // check here, instead of spinning this loop synchronously for ever.
        const unhandled: never = next;
        throw new Error(
          `The agent loop has no case for the step ${JSON.stringify(unhandled)}.`
        );
      }
    }
  }
}

/** What a turn begins with: its shared context, its request, its context keeper. */
async function startTurn(config: RunConfig, turn: ITurn) {
  const run: IRunContext = {
    config,
    turn,
    state: new RunState(
      config.runSettings,
      tool => config.tools.get(tool) !== undefined
    ),
    failures: new FailureStreak(),
    now: turn.now ?? (() => Date.now())
  };
  // The request this run works on: kept verbatim when older steps are summarised.
  const prompt = turn.conversation.messages.length - 1;
  run.state.seen.position = prompt;
  for (const cell of turn.scope?.knownCells ?? []) {
    run.state.seen.set(cell.id, cell.source);
  }
  // A fix's turns write code whatever they are told: no answer to check.
  const asksData =
    config.computeFirst && !turn.scope?.codeOnly && !turn.scope?.wordsOnly
      ? await smallModelContext(turn, prompt)
      : false;
  const context = new ContextKeeper({
    model: config.model,
    tools: config.tools.specs,
    window: config.contextTokens,
    budget: Math.max(2000, config.contextTokens - RESERVED_TOKENS),
    slot: turn.summary ?? { summary: null },
    prompt,
    ...(turn.scope?.historyFrom !== undefined
      ? { from: turn.scope.historyFrom }
      : {}),
    state: run.state,
    signal: turn.signal,
    onEvent: turn.onEvent,
    produce: item => applyItem(turn, item)
  });
  return { run, prompt, asksData, context };
}

/**
 * Small models: before the first model call, the start of the data files
 * the request names and what the kernel holds go into the conversation (a
 * follow-up's model is told the variables earlier turns made). True when
 * the request asks about data: then an answer from a turn that ran no code
 * is sent back (compute-check.ts).
 */
async function smallModelContext(
  turn: ITurn,
  prompt: number
): Promise<boolean> {
  const request = userText(turn.conversation.messages[prompt]);
  const preview = request ? await dataPreview(request, turn.notebook) : null;
  const rows = await probeVariables(
    turn.notebook,
    KERNEL_PROBE,
    turn.signal,
    10_000
  );
  const note = kernelNote(rows);
  const dates = timeHint(request, [
    ...frameDateColumns(rows),
    ...previewDateColumns(preview)
  ]);
  const context = [preview, note, dates].filter(Boolean).join('\n\n');
  if (context) {
    applyItem(turn, observationItem(context));
  }
  const names = (rows ?? []).flatMap(row => [
    row.name,
    ...(row.columns ?? []).map(([column]) => column)
  ]);
  return !!preview || isDataQuestion(request, names, !!rows?.length);
}

/** However it ends, the run names the cells it leaves running. */
async function end(
  run: IRunContext,
  stop: Extract<NextStep, { kind: 'stop' }> & { steps: number },
  uncomputed: () => boolean = () => false
): Promise<IRunOutcome> {
  const { reason, error, detail, steps } = stop;
  const last = run.turn.conversation.messages.at(-1);
  const answer =
    reason === 'completed' &&
    last?.role === 'assistant' &&
    !last.toolCalls?.length &&
    last.content
      ? last.content
      : undefined;
  const outcome: IRunOutcome = {
    reason,
    steps,
    ...(error ? { error } : {}),
    ...(detail !== undefined ? { detail } : {}),
    ...(answer !== undefined ? { answer } : {}),
    ...(answer !== undefined && uncomputed() ? { uncomputed: true } : {})
  };
  const left = await cellsLeftRunning(run.turn.notebook, run.state);
  applyItem(run.turn, {
    type: 'end',
    reason,
    error,
    detail,
    ...(left.length ? { leftRunning: left } : {})
  });
  return left.length ? { ...outcome, leftRunning: left } : outcome;
}

/**
 * A model call's result: its turn and the reply item it produced, or the
 * step that ends the run (with what was said before it was cut off).
 */
type ModelStep =
  | { kind: 'turn'; turn: IAssistantTurn; reply: TurnItem }
  | { kind: 'end'; stop: Extract<NextStep, { kind: 'stop' }> };

/**
 * The model step: stream one turn of the model, for the request `request`
 * gives, showing its text as it comes; a turn cut off (Stop, an error)
 * keeps what was said, with why.
 */
async function callModel(
  run: Pick<IRunContext, 'config' | 'turn'>,
  request: () => Promise<ChatMessage[]>,
  shape: IRequestShape
): Promise<ModelStep> {
  const { model, tools } = run.config;
  const { signal, onEvent } = run.turn;
  const accumulator = new TurnAccumulator();
  // What the user saw of the reply as it streamed.
  let shown = '';
  const stopped = (): ModelStep => {
    keepPartialAnswer(run.turn, shown);
    return { kind: 'end', stop: { kind: 'stop', reason: 'stopped' } };
  };
  try {
    const sent = await request();
    if (signal.aborted) {
      return { kind: 'end', stop: { kind: 'stop', reason: 'stopped' } };
    }
    const scope = run.turn.scope;
    const stream = model.streamChat(
      {
        messages: sent,
        tools: tools.specs,
        ...(scope?.wordsOnly
          ? { toolChoice: 'none' as const, noCodeBlocks: true }
          : shape.forceCall || scope?.codeOnly
            ? { toolChoice: 'required' as const }
            : {}),
        ...(scope?.codeTarget ? { codeBlockCell: scope.codeTarget } : {}),
        ...(scope?.prefill ? { prefill: scope.prefill } : {}),
        ...(shape.sampled || scope?.sampled
          ? { temperature: RETRY_TEMPERATURE }
          : {}),
        ...(shape.prefill ? { prefill: shape.prefill } : {})
      },
      signal
    );
    let busySince = Date.now();
    for await (const chunk of stream) {
      const text = accumulator.add(chunk);
      if (text) {
        shown += text;
        onEvent({ type: 'text-delta', text });
      }
      // A burst of chunks is processed without leaving the microtask queue;
      // yield now and then so the page can paint and stay responsive.
      if (Date.now() - busySince > YIELD_EVERY_MS) {
        await new Promise(resolve => setTimeout(resolve, 0));
        busySince = Date.now();
      }
    }
  } catch (error) {
    if (signal.aborted || isAbortError(error)) {
      return stopped();
    }
    const described = describeModelError(error);
    keepPartialAnswer(run.turn, shown, described.message);
    return {
      kind: 'end',
      stop: { kind: 'stop', reason: 'error', error: described }
    };
  }
  if (signal.aborted) {
    // The SDK ends a stream quietly when it is aborted: what came so far
    // is a cut-off answer, not a final one, and its calls must not run.
    return stopped();
  }
  const turn = accumulator.result();
  if (turn.usage) {
    onEvent({ type: 'usage', usage: turn.usage });
  }
  const message: AssistantMessage = {
    role: 'assistant',
    content: turn.text || null,
    ...(turn.toolCalls.length ? { toolCalls: turn.toolCalls } : {})
  };
  return {
    kind: 'turn',
    turn,
    reply: {
      type: 'reply',
      message,
      ...(shown !== (turn.text || '') ? { shown } : {})
    }
  };
}

/** A message the model reads that the transcript does not show. */
function observationItem(content: string): TurnItem {
  return {
    type: 'message',
    message: { role: 'user', content, observation: true }
  };
}

/**
 * Keep what the model said before it was cut off: the user saw `text`; the
 * model reads it with why.
 */
function keepPartialAnswer(
  turn: ITurn,
  text: string,
  why = 'stopped by the user'
): void {
  if (text) {
    applyItem(turn, {
      type: 'reply',
      message: { role: 'assistant', content: `${text}\n\n[${why}]` },
      shown: text
    });
  }
}
