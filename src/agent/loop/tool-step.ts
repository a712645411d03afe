/**
 * The loop's tool step: run a turn's calls in order, or refuse them all as
 * a repeat. Each call is checked once against its tool's schema, asked
 * about when its tool says so (`callStep`, pure: run, ask or refuse), and
 * run with the arguments the user approved (edited code applied). What a
 * call needs (its kind, its card's title, pre-approval) comes from the
 * tool's own definition: no tool is known here by name. Every call gets its
 * tool message, or the conversation is invalid for the next request. Each
 * call's items (its card, its result with its message) are applied as it
 * starts and ends (`applyItem`), so the card shows it running.
 */
import type { INotebookPort } from '../ports';
import {
  toolFailure,
  toolKind,
  toolTitle,
  type ITool,
  type IToolPreview,
  type ToolKind,
  type ToolRegistry
} from '../tools/registry';
import { installSources } from '../tools/install-sources';
import type { RunState } from '../tools/run-state';
import { folderOf } from '../tools/runs-later';
import type { IImageAttachment, IToolCall, IToolResult } from '../types';
import {
  needsApproval,
  rejectionMessage,
  type Approver,
  type IApprovalRequest
} from './approval';
import { applyItem } from './conversation';
import type { IRunContext, ITurn, RunConfig } from './run-config';
import type { TurnItem } from './turn-items';
import { imageObservation } from './vision';

/**
 * A call starting: its card says what its tool's definition says of it
 * (title, the cell it runs, its code, its kind), read once here.
 */
export function callItem(tools: ToolRegistry, call: IToolCall): TurnItem {
  const runsCell = tools.runCellOfCall(call);
  const code = tools.codeOfCall(call);
  const kind = tools.kindOf(call);
  return {
    type: 'call',
    call,
    card: {
      title: tools.titleOf(call),
      ...(runsCell !== undefined ? { runsCell } : {}),
      ...(code !== undefined ? { code } : {}),
      ...(kind !== undefined ? { kind } : {})
    }
  };
}

/** A call's end: what its card shows and the message the model reads. */
export function resultItem(
  call: IToolCall,
  result: IToolResult,
  durationMs: number
): TurnItem {
  return {
    type: 'result',
    callId: call.id,
    result,
    durationMs,
    message: { role: 'tool', toolCallId: call.id, content: result.output }
  };
}

/** The items of answering each call with `refusal` (shown as a failed card), running none. */
export function refuseCalls(
  config: Pick<RunConfig, 'tools'>,
  calls: ReadonlyArray<IToolCall>,
  refusal: string
): TurnItem[] {
  return calls.flatMap(call => [
    callItem(config.tools, call),
    resultItem(call, { ok: false, output: refusal }, 0)
  ]);
}

/**
 * Run the calls in order, each answered by a tool message (calls after a
 * stop or a repeated failure with why they did not run), then attach the
 * images they gave for a vision model. True when a failure repeated.
 */
export async function runCalls(
  run: IRunContext,
  calls: ReadonlyArray<IToolCall>
): Promise<boolean> {
  const { config, turn, state, failures, now } = run;
  const { tools } = config;
  const { conversation, signal } = turn;
  let repeated = false;
  const images: IImageAttachment[] = [];
  // Cells these calls read or write were seen at this step of the history.
  state.seen.position = conversation.messages.length - 1;
  for (const call of calls) {
    // Every tool call must get a tool message, even when stopped, or the
    // conversation is invalid for the next request.
    if (signal.aborted || repeated) {
      const why = repeated
        ? 'the same error repeated'
        : 'the user stopped the agent';
      applyItem(turn, {
        type: 'message',
        message: {
          role: 'tool',
          toolCallId: call.id,
          content: `Not run: ${why}.`
        }
      });
      continue;
    }
    applyItem(turn, callItem(tools, call));
    const started = now();
    // The card's duration is the call's own: the time the user took to
    // approve it is not part of it.
    let waited = 0;
    const ask = turn.approve;
    const result = await executeToolCall(
      call,
      run,
      ask &&
        (async (request, abort) => {
          const asked = now();
          try {
            return await ask(request, abort);
          } finally {
            waited += now() - asked;
          }
        })
    );
    applyItem(
      turn,
      resultItem(call, result, Math.max(0, now() - started - waited))
    );
    images.push(...(result.images ?? []));
    repeated = failures.record(result.ok, result.output, tools.runsCode(call));
  }
  const observation = config.vision
    ? await imageObservation(images, config.vision)
    : null;
  if (observation) {
    applyItem(turn, { type: 'message', message: observation });
  }
  return repeated;
}

/**
 * What executing one call reads of its run: the tools and approval mode
 * (the run's configuration, passed whole), where it works and the turn's
 * approval scope.
 */
export interface ICallRun {
  config: Pick<RunConfig, 'tools' | 'approvalMode'>;
  turn: Pick<ITurn, 'notebook' | 'signal' | 'scope'>;
  state: RunState;
}

/**
 * Run one call, asking first when needed; never throws for tool failures.
 * `approve` asks the user (the one approval channel: the session shows the
 * request); without it every call is approved (headless use).
 */
export async function executeToolCall(
  call: IToolCall,
  run: ICallRun,
  approve?: Approver
): Promise<IToolResult> {
  const { tools } = run.config;
  const { notebook, signal } = run.turn;
  const { state } = run;
  // An invalid call is refused before the user is asked to approve it.
  const checked = await tools.check(call);
  if ('refused' in checked) {
    return checked.refused;
  }
  const { tool } = checked;
  const context = { notebook, signal, state };
  let preview: IToolPreview = {};
  if (tool.preview) {
    try {
      preview = await tool.preview(checked.args, context);
    } catch (error) {
      return toolFailure(call.name, error);
    }
  }
  const step = callStep(tool, checked.args, preview, run);
  if (step.kind === 'refuse') {
    return step.result;
  }
  if (step.kind === 'run') {
    return runTool(call.name, tool, checked.args, context);
  }
  const kind = step.toolKind;
  const args = (checked.args ?? {}) as Record<string, unknown>;
  const request = await withInstallSources(
    await describeCall(call, tool, args, notebook, { ...preview, kind }),
    notebook
  );
  const decision = approve
    ? await approve(request, signal)
    : { approved: true as const };
  if (signal.aborted) {
    return { ok: false, output: 'Not run: the user stopped the agent.' };
  }
  if (!decision.approved) {
    const reason = decision.reason?.trim();
    return {
      ok: false,
      cellId: request.cellId,
      output: rejectionMessage(request, decision.reason),
      rejected: reason ? { reason } : {}
    };
  }
  let approved: { args: unknown } | { refused: IToolResult } = checked;
  const { code } = decision;
  const edited = code !== undefined && code !== request.code;
  if (edited) {
    if (tool.codeArgument) {
      // New arguments: checked as the model's were.
      approved = await tools.check({
        ...call,
        arguments: JSON.stringify({
          ...args,
          [tool.codeArgument]: code
        })
      });
    } else if (request.cellId) {
      // A call on a cell (run_cell): the user edited the cell's code; the
      // cell shows what ran.
      await notebook.editCell(request.cellId, code);
      state.seen.set(request.cellId, code);
    }
  }
  const result =
    'refused' in approved
      ? approved.refused
      : await runTool(call.name, tool, approved.args, context);
  if (edited) {
    return {
      ...result,
      output: `${result.output}\n(The user edited the code before approving it.)`
    };
  }
  return result;
}

/** Run `tool` on arguments already checked; a tool that throws gives its failure. */
async function runTool(
  name: string,
  tool: ITool<unknown>,
  args: unknown,
  context: { notebook: INotebookPort; signal: AbortSignal; state: RunState }
): Promise<IToolResult> {
  try {
    return await tool.execute(args, context);
  } catch (error) {
    return toolFailure(name, error);
  }
}

/** What becomes of a checked call once its tool has looked at it. */
export type CallStep =
  /** Refused by its tool's preview. */
  | { kind: 'refuse'; result: IToolResult }
  /** Run without asking. */
  | { kind: 'run' }
  /** Ask the user for approval first; `toolKind` is what the request shows. */
  | { kind: 'ask'; toolKind: ToolKind };

/**
 * Whether a call runs, is asked about, or is refused: pure, from the
 * tool's properties and preview, the approval mode and the turn's scope.
 */
export function callStep(
  tool: ITool<unknown>,
  args: unknown,
  preview: IToolPreview,
  run: Pick<ICallRun, 'config' | 'turn'>
): CallStep {
  if (preview.refused !== undefined) {
    return { kind: 'refuse', result: { ok: false, output: preview.refused } };
  }
  const { scope } = run.turn;
  const kind = preview.kind ?? toolKind(tool, args);
  const later = preview.runsLater ?? null;
  const asks =
    needsApproval(
      kind,
      scope?.approvalMode ?? run.config.approvalMode,
      later
    ) ||
    !!tool.asksAlways ||
    !!scope?.alwaysAsk?.(tool);
  // A cell the user asked to fix does not vouch for a file that runs later.
  if (!asks || (!later && preApproved(tool, args, scope?.approvedCells))) {
    return { kind: 'run' };
  }
  return { kind: 'ask', toolKind: kind };
}

/** A call on a cell the user already asked to have fixed, of a tool that allows it. */
function preApproved(
  tool: ITool<unknown>,
  args: unknown,
  cells: ReadonlySet<string> | undefined
): boolean {
  const cellId = tool.cellOf?.(args);
  return (
    !!cells &&
    tool.approvedWithCell === true &&
    typeof cellId === 'string' &&
    cells.has(cellId)
  );
}

/**
 * The request with what a `pip install` in its code fetches from besides
 * the default index (tools/install-sources.ts): the card shows it.
 */
async function withInstallSources(
  request: IApprovalRequest,
  notebook: INotebookPort
): Promise<IApprovalRequest> {
  if (request.kind !== 'run' || !request.code || !/\bpip/.test(request.code)) {
    return request;
  }
  const sources = await installSources(
    request.code,
    folderOf(notebook.path),
    path => notebook.readFile(path)
  );
  return sources.length ? { ...request, installSources: sources } : request;
}

async function describeCall(
  call: IToolCall,
  tool: ITool<unknown>,
  args: Record<string, unknown>,
  notebook: INotebookPort,
  preview: IToolPreview & { kind: ToolKind }
): Promise<IApprovalRequest> {
  const { codeArgument } = tool;
  const { kind } = preview;
  const title = preview.title ?? toolTitle(tool, args);
  const cell = tool.cellOf?.(args);
  const cellId = typeof cell === 'string' ? cell : undefined;
  if (preview.code !== undefined || preview.diff !== undefined) {
    return {
      call,
      kind,
      title,
      code: preview.code ?? null,
      ...(preview.diff !== undefined ? { diff: preview.diff } : {}),
      ...(preview.runsLater ? { runsLater: preview.runsLater } : {})
    };
  }
  if (codeArgument && typeof args[codeArgument] === 'string') {
    return { call, kind, cellId, title, code: args[codeArgument] as string };
  }
  if (cellId) {
    const cell = (await notebook.getCells()).find(c => c.id === cellId);
    return { call, kind, cellId, title, code: cell ? cell.source : null };
  }
  const details = Object.keys(args).length
    ? JSON.stringify(args, null, 2)
    : undefined;
  return { call, kind, title, code: null, ...(details ? { details } : {}) };
}
