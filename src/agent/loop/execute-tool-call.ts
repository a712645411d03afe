/**
 * One tool call of the loop: ask for approval when the policy says so,
 * apply the user's edits to the code, then run the tool. What a call needs
 * (its kind, its card's title, pre-approval) comes from the tool's own
 * definition: no tool is known here by name.
 */
import type { INotebookPort } from '../ports';
import {
  toolKind,
  toolTitle,
  type ITool,
  type IToolPreview,
  type ToolFilter,
  type ToolKind,
  type ToolRegistry
} from '../tools/registry';
import type { RunState } from '../tools/run-state';
import type { IToolCall, IToolResult } from '../types';
import {
  needsApproval,
  rejectionMessage,
  type ApprovalMode,
  type Approver,
  type IApprovalRequest
} from './approval';

/** What executing one call needs. */
export interface IExecuteCallOptions {
  tools: ToolRegistry;
  notebook: INotebookPort;
  signal: AbortSignal;
  state: RunState;
  approvalMode: ApprovalMode;
  /** Tools this run asks for whatever the mode (installs during a fix); tools `asksAlways` ask anyway. */
  alwaysAsk?: ToolFilter;
  /** Cells whose calls (of tools `approvedWithCell`) the user approved up front (the cell to fix). */
  approvedCells?: ReadonlySet<string>;
  /** Asks the user: the one approval channel (the session shows the request). */
  approve?: Approver;
}

/** Run one call, asking first when needed; never throws for tool failures. */
export async function executeToolCall(
  call: IToolCall,
  options: IExecuteCallOptions
): Promise<IToolResult> {
  const { tools, notebook, signal, state } = options;
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
  if (preview.refused !== undefined) {
    return { ok: false, output: preview.refused };
  }
  const kind = preview.kind ?? toolKind(tool, checked.args);
  const later = preview.runsLater ?? null;
  if (
    !(
      needsApproval(kind, options.approvalMode, later) ||
      tool.asksAlways ||
      options.alwaysAsk?.(tool)
    ) ||
    // A cell the user asked to fix does not vouch for a file that runs later.
    (!later && preApproved(tool, checked.args, options.approvedCells))
  ) {
    return tools.call(call, { notebook, signal, state });
  }
  const args = (checked.args ?? {}) as Record<string, unknown>;
  const request = await describeCall(call, tool, args, notebook, {
    ...preview,
    kind
  });
  const decision = options.approve
    ? await options.approve(request, signal)
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

/** A call on a cell the user already asked to have fixed, of a tool that allows it. */
function preApproved(
  tool: ITool<unknown>,
  args: unknown,
  cells: ReadonlySet<string> | undefined
): boolean {
  const cellId = (args as { cell_id?: unknown } | null)?.cell_id;
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
  const cellId = typeof args.cell_id === 'string' ? args.cell_id : undefined;
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
