/**
 * One tool call of the loop: ask for approval when the policy says so
 * (`callStep`, pure: run, ask or refuse), apply the user's edits to the
 * code, then run the tool. What a call needs (its kind, its card's title,
 * pre-approval) comes from the tool's own definition: no tool is known
 * here by name.
 */
import type { INotebookPort } from '../ports';
import {
  toolKind,
  toolTitle,
  type ITool,
  type IToolPreview,
  type ToolKind
} from '../tools/registry';
import type { RunState } from '../tools/run-state';
import type { IToolCall, IToolResult } from '../types';
import {
  needsApproval,
  rejectionMessage,
  type Approver,
  type IApprovalRequest
} from './approval';
import type { RunConfig } from './run-config';
import type { ITurn } from './turn';

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
  let preview: IToolPreview = {};
  if (tool.preview) {
    try {
      preview = await tool.preview(checked.args, { notebook, signal, state });
    } catch (error) {
      return {
        ok: false,
        output: `Error: ${call.name} failed: ${(error as Error).message ?? String(error)}`
      };
    }
  }
  const step = callStep(tool, checked.args, preview, run);
  if (step.kind === 'refuse') {
    return step.result;
  }
  if (step.kind === 'run') {
    return tools.call(call, { notebook, signal, state });
  }
  const kind = step.toolKind;
  const args = (checked.args ?? {}) as Record<string, unknown>;
  const request = await describeCall(call, tool, args, notebook, {
    ...preview,
    kind
  });
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
  let approved = call;
  if (decision.code !== undefined && decision.code !== request.code) {
    if (tool.codeArgument) {
      approved = {
        ...call,
        arguments: JSON.stringify({
          ...args,
          [tool.codeArgument]: decision.code
        })
      };
    } else if (request.cellId) {
      // A call on a cell (run_cell): the user edited the cell's code; the
      // cell shows what ran.
      await notebook.editCell(request.cellId, decision.code);
      state.seen.set(request.cellId, decision.code);
    }
  }
  const result = await tools.call(approved, { notebook, signal, state });
  if (
    approved !== call ||
    (decision.code !== undefined && decision.code !== request.code)
  ) {
    return {
      ...result,
      output: `${result.output}\n(The user edited the code before approving it.)`
    };
  }
  return result;
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
