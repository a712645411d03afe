/**
 * The agent loop: plan, act, observe, refine.
 *
 * Call the model with the conversation and the tools; run every tool call it
 * asks for (asking the user first where the approval policy says so) and
 * append the observations as tool messages; repeat until it answers without
 * tool calls, the user stops it, the same failure or the same step repeats,
 * or the step limit is hit. All cell changes of a run are one undo step.
 */
import type { ISummarySlot } from '../context/summary';
import { TurnAccumulator } from '../model/accumulator';
import { describeModelError, isAbortError } from '../model/errors';
import { RETRY_TEMPERATURE } from '../model/sampling';
import type { IModelClient } from '../model/types';
import type { INotebookPort } from '../ports';
import type { ToolFilter, ToolRegistry } from '../tools/registry';
import { RunState, type IRunSettings } from '../tools/run-state';
import type {
  AgentEvent,
  ChatMessage,
  IAgentError,
  IImageAttachment,
  IRunningCell,
  IToolCall,
  RunEndReason
} from '../types';
import {
  DEFAULT_APPROVAL_MODE,
  type ApprovalMode,
  type Approver
} from './approval';
import { dataPreview } from '../context/data-preview';
import { ContextKeeper } from './context-keeper';
import { executeToolCall } from './execute-tool-call';
import {
  cellsLeftRunning,
  reminderNotice,
  stillRunningReminder
} from './left-running';
import {
  afterAnswer,
  afterRefusal,
  FRESH_MEMORY,
  lastOutput,
  shapeRequest,
  userText,
  type IComputeFirst,
  type IRequestShape
} from './next-step';
import { imageObservation, type IVisionOptions } from './vision';
import {
  DEFAULT_MAX_STEPS,
  FailureStreak,
  isFinalAnswer,
  reachedStepLimit,
  RepeatedSteps,
  repeatedStepMessage
} from './stop-conditions';

/** Everything one run needs. */
export interface IRunAgentOptions {
  model: IModelClient;
  tools: ToolRegistry;
  notebook: INotebookPort;
  /** The conversation so far, ending with the user's new message. Appended to in place. */
  messages: ChatMessage[];
  /** Aborting stops the model stream and interrupts a running cell. */
  signal: AbortSignal;
  /** Receives progress as it happens. */
  onEvent: (event: AgentEvent) => void;
  maxSteps?: number;
  approvalMode?: ApprovalMode;
  /** Asks the user; without one, every call is approved (headless use). */
  approve?: Approver;
  runSettings?: IRunSettings;
  /** Whether and how images reach the model (default: not at all). */
  vision?: IVisionOptions;
  /** The model's context window in tokens (default 32768). */
  contextTokens?: number;
  /**
   * Where the conversation's summary lives (the session's, saved with the
   * chat); updated in place when older steps are summarised. Default: this
   * run's own.
   */
  summary?: ISummarySlot;
  /** Clock for tool durations (tests inject one). */
  now?: () => number;
  /**
   * False when the caller groups several runs into one undo step itself
   * (a workflow of several turns); default true: this run is one undo step.
   */
  undoGroup?: boolean;
  /** Tools that always need the user's approval in this run, whatever the mode. */
  alwaysAsk?: ToolFilter;
  /** Cells the user asked to have edited and run: calls of tools `approvedWithCell` on them need no approval. */
  approvedCells?: ReadonlySet<string>;
  /** Cells whose current source the model was given (it may edit them without reading first). */
  knownCells?: ReadonlyArray<{ id: string; source: string }>;
  /**
   * Small models: show the start of the data files the request names
   * before the first model call, and send an answer back (at most twice)
   * when it was not computed (compute-check.ts). `protocol` is how the
   * model runs code, for the wording of the repair request.
   */
  computeFirst?: IComputeFirst;
}

/** Default context window, in tokens, when the model's is not known. */
export const DEFAULT_CONTEXT_TOKENS = 32768;

/** Longest stretch of stream handling before giving the event loop a turn. */
const YIELD_EVERY_MS = 25;

/** Tokens kept free for the tool schemas and the model's answer. */
const RESERVED_TOKENS = 6000;

/** How the run ended. */
export interface IRunOutcome {
  reason: RunEndReason;
  steps: number;
  error?: IAgentError;
  /** For `repeated-failure`: the failure that repeated. */
  detail?: string;
  /** Cells the agent ran that were still running when the run ended. */
  leftRunning?: IRunningCell[];
}

/** Run the agent until it answers, is stopped, or runs out of steps. */
export async function runAgent(
  options: IRunAgentOptions
): Promise<IRunOutcome> {
  const { notebook } = options;
  if (options.undoGroup === false) {
    return loop(options);
  }
  notebook.beginUndoGroup();
  try {
    return await loop(options);
  } finally {
    notebook.endUndoGroup();
  }
}

async function loop(options: IRunAgentOptions): Promise<IRunOutcome> {
  const { model, tools, notebook, messages, signal, onEvent } = options;
  const maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS;
  const now = options.now ?? (() => Date.now());
  const state = new RunState(options.runSettings);
  // The request this run works on: kept verbatim when older steps are summarised.
  const prompt = messages.length - 1;
  state.seen.position = prompt;
  for (const cell of options.knownCells ?? []) {
    state.seen.set(cell.id, cell.source);
  }
  const failures = new FailureStreak();
  const repeats = new RepeatedSteps();
  // However it ends, the run names the cells it leaves running.
  const end = async (outcome: IRunOutcome): Promise<IRunOutcome> => {
    const left = await cellsLeftRunning(notebook, state);
    onEvent({
      type: 'end',
      reason: outcome.reason,
      error: outcome.error,
      detail: outcome.detail,
      ...(left.length ? { leftRunning: left } : {})
    });
    return left.length ? { ...outcome, leftRunning: left } : outcome;
  };
  let memory = FRESH_MEMORY;
  let namesData = false;
  if (options.computeFirst) {
    const request = messages[prompt];
    const preview =
      request?.role === 'user'
        ? await dataPreview(request.content, notebook)
        : null;
    if (preview) {
      namesData = true;
      messages.push({ role: 'user', content: preview, observation: true });
    }
  }
  const window = options.contextTokens ?? DEFAULT_CONTEXT_TOKENS;
  const context = new ContextKeeper({
    model,
    tools: tools.specs,
    window,
    budget: Math.max(2000, window - RESERVED_TOKENS),
    slot: options.summary ?? { summary: null },
    prompt,
    state,
    signal,
    onEvent
  });

  const run: IRunContext = { options, state, failures, now };
  let step = 0;
  while (!reachedStepLimit(step, maxSteps)) {
    if (signal.aborted) {
      return end({ reason: 'stopped', steps: step });
    }
    step += 1;

    // Call the model. Within the window, the request is the history itself
    // (a stable prefix for prompt caching); near it, older steps are
    // summarised once; past it, older tool outputs are elided.
    const next = shapeRequest(
      memory,
      options.computeFirst,
      userText(messages[prompt])
    );
    memory = next.memory;
    const called = await callModel(
      run,
      () => context.request(messages),
      next.shape
    );
    if (called.kind !== 'turn') {
      return end({ ...called.outcome, steps: step });
    }
    const { turn } = called;
    messages.push({
      role: 'assistant',
      content: turn.text || null,
      ...(turn.toolCalls.length ? { toolCalls: turn.toolCalls } : {})
    });

    // An answer: sent back (small models), a reminder of cells left
    // running, or the end of the run.
    if (isFinalAnswer(turn)) {
      const answered = signal.aborted
        ? ({ kind: 'check-running' } as const)
        : afterAnswer(memory, {
            messages,
            prompt,
            runsCode: call => tools.runsCode(call),
            namesData,
            computeFirst: options.computeFirst
          });
      if (answered.kind === 'send-back') {
        memory = answered.memory;
        const answer = messages[messages.length - 1];
        if (answered.guess && answer.role === 'assistant') {
          messages[messages.length - 1] = { ...answer, guess: true };
        }
        onEvent({ type: 'notice', text: answered.notice });
        messages.push({
          role: 'user',
          content: answered.text,
          observation: true
        });
        continue;
      }
      // An answer over code still running is given from partial output:
      // once, the model is asked to wait for it or stop it first (where a
      // tool to wait with is offered).
      const left =
        memory.reminded || !tools.offers(tool => !!tool.waitsForCells)
          ? []
          : await cellsLeftRunning(notebook, state);
      if (left.length && !signal.aborted) {
        memory = { ...memory, reminded: true };
        onEvent({ type: 'notice', text: reminderNotice(left) });
        messages.push({
          role: 'user',
          content: stillRunningReminder(left),
          observation: true
        });
        continue;
      }
      return end({ reason: 'completed', steps: step });
    }

    // A step sent again: refused with what it gave, or the end of the run.
    const verdict = repeats.record(turn.toolCalls, call =>
      tools.runsCode(call)
    );
    if (verdict !== 'run') {
      const previous = lastOutput(messages);
      refuseCalls(run, turn.toolCalls, repeatedStepMessage(previous));
      if (verdict === 'stop') {
        return end({ reason: 'repeated-step', steps: step });
      }
      memory = afterRefusal(memory, previous, options.computeFirst);
      continue;
    }

    // The calls, one after another; their observations.
    const repeated = await runCalls(run, turn.toolCalls);
    if (repeated) {
      return end({
        reason: 'repeated-failure',
        steps: step,
        detail: failures.signature
      });
    }
  }
  return end({ reason: 'step-limit', steps: step });
}

/** What the steps of one run share. */
interface IRunContext {
  options: IRunAgentOptions;
  state: RunState;
  failures: FailureStreak;
  now: () => number;
}

/** A model call's result: its turn, or how the run ends (steps left to the caller). */
type ModelStep =
  | { kind: 'turn'; turn: ReturnType<TurnAccumulator['result']> }
  | { kind: 'end'; outcome: Omit<IRunOutcome, 'steps'> };

/** Stream one turn of the model, showing its text as it comes. */
async function callModel(
  run: IRunContext,
  request: () => Promise<ChatMessage[]>,
  shape: IRequestShape
): Promise<ModelStep> {
  const { model, tools, messages, signal, onEvent } = run.options;
  const accumulator = new TurnAccumulator();
  const stopped = (): ModelStep => {
    keepPartialAnswer(messages, accumulator.result().text);
    return { kind: 'end', outcome: { reason: 'stopped' } };
  };
  try {
    const sent = await request();
    if (signal.aborted) {
      return { kind: 'end', outcome: { reason: 'stopped' } };
    }
    const stream = model.streamChat(
      {
        messages: sent,
        tools: tools.specs,
        ...(shape.forceCall ? { toolChoice: 'required' as const } : {}),
        ...(shape.sampled ? { temperature: RETRY_TEMPERATURE } : {}),
        ...(shape.prefill ? { prefill: shape.prefill } : {})
      },
      signal
    );
    let busySince = Date.now();
    for await (const chunk of stream) {
      const text = accumulator.add(chunk);
      if (text) {
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
    keepPartialAnswer(messages, accumulator.result().text, described.message);
    return { kind: 'end', outcome: { reason: 'error', error: described } };
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
  return { kind: 'turn', turn };
}

/** Answer each call with `refusal` (shown as a failed card), running none. */
function refuseCalls(
  run: IRunContext,
  calls: ReadonlyArray<IToolCall>,
  refusal: string
): void {
  const { tools, messages, onEvent } = run.options;
  for (const call of calls) {
    onEvent({ type: 'tool-call', call, title: tools.titleOf(call) });
    onEvent({
      type: 'tool-result',
      callId: call.id,
      result: { ok: false, output: refusal },
      durationMs: 0
    });
    messages.push({ role: 'tool', toolCallId: call.id, content: refusal });
  }
}

/**
 * Run the calls in order, each answered by a tool message (calls after a
 * stop or a repeated failure with why they did not run), then attach the
 * images they gave for a vision model. True when a failure repeated.
 */
async function runCalls(
  run: IRunContext,
  calls: ReadonlyArray<IToolCall>
): Promise<boolean> {
  const { options, state, failures, now } = run;
  const { tools, notebook, messages, signal, onEvent } = options;
  let repeated = false;
  const images: IImageAttachment[] = [];
  // Cells these calls read or write were seen at this step of the history.
  state.seen.position = messages.length - 1;
  for (const call of calls) {
    // Every tool call must get a tool message, even when stopped, or the
    // conversation is invalid for the next request.
    if (signal.aborted || repeated) {
      const why = repeated
        ? 'the same error repeated'
        : 'the user stopped the agent';
      messages.push({
        role: 'tool',
        toolCallId: call.id,
        content: `Not run: ${why}.`
      });
      continue;
    }
    onEvent({ type: 'tool-call', call, title: tools.titleOf(call) });
    const started = now();
    // The card's duration is the call's own: the time the user took to
    // approve it is not part of it.
    let waited = 0;
    const ask = options.approve;
    const result = await executeToolCall(call, {
      tools,
      notebook,
      signal,
      state,
      approvalMode: options.approvalMode ?? DEFAULT_APPROVAL_MODE,
      alwaysAsk: options.alwaysAsk,
      approvedCells: options.approvedCells,
      approve:
        ask &&
        (async (request, abort) => {
          const asked = now();
          try {
            return await ask(request, abort);
          } finally {
            waited += now() - asked;
          }
        })
    });
    onEvent({
      type: 'tool-result',
      callId: call.id,
      result,
      durationMs: Math.max(0, now() - started - waited)
    });
    messages.push({
      role: 'tool',
      toolCallId: call.id,
      content: result.output
    });
    images.push(...(result.images ?? []));
    repeated = failures.record(result.ok, result.output, tools.runsCode(call));
  }
  const observation = options.vision
    ? await imageObservation(images, options.vision)
    : null;
  if (observation) {
    messages.push(observation);
  }
  return repeated;
}

/** Keep what the model said before it was cut off, with why, in the history. */
function keepPartialAnswer(
  messages: ChatMessage[],
  text: string,
  why = 'stopped by the user'
): void {
  if (text) {
    messages.push({ role: 'assistant', content: `${text}\n\n[${why}]` });
  }
}
