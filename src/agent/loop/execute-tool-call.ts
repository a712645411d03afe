/**
 * One tool call of the loop: ask for approval when the policy says so,
 * apply the user's edits to the code, then run the tool.
 */
import type { INotebookPort } from '../ports';
import type { ToolRegistry } from '../tools/registry';
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
  /** Tools that need approval whatever the mode (e.g. installs during a fix). */
  alwaysAsk?: ReadonlySet<string>;
  /** Cells whose edit_cell/run_cell the user approved up front (the cell to fix). */
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
  const tool = tools.get(call.name);
  const parsed = tools.parseArguments(call);
  if (
    !tool ||
    'error' in parsed ||
    !(
      needsApproval(tool.kind, options.approvalMode) ||
      options.alwaysAsk?.has(tool.name)
    ) ||
    preApproved(call.name, parsed.args, options.approvedCells)
  ) {
    return tools.call(call, { notebook, signal, state });
  }
  const args = (parsed.args ?? {}) as Record<string, unknown>;
  const request = await describeCall(
    call,
    tool.kind,
    args,
    tool.codeArgument,
    notebook
  );
  const decision = options.approve
    ? await options.approve(request, signal)
    : { approved: true as const };
  if (signal.aborted) {
    return { ok: false, output: 'Not run: the user stopped the agent.' };
  }
  if (!decision.approved) {
    return {
      ok: false,
      cellId: request.cellId,
      output: rejectionMessage(request, decision.reason)
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
      // run_cell: the user edited the cell's code; the cell shows what ran.
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

/** edit_cell/run_cell on a cell the user already asked to have fixed. */
function preApproved(
  name: string,
  args: unknown,
  cells: ReadonlySet<string> | undefined
): boolean {
  const cellId = (args as { cell_id?: unknown } | null)?.cell_id;
  return (
    !!cells &&
    (name === 'edit_cell' || name === 'run_cell') &&
    typeof cellId === 'string' &&
    cells.has(cellId)
  );
}

async function describeCall(
  call: IToolCall,
  kind: IApprovalRequest['kind'],
  args: Record<string, unknown>,
  codeArgument: string | undefined,
  notebook: INotebookPort
): Promise<IApprovalRequest> {
  const cellId = typeof args.cell_id === 'string' ? args.cell_id : undefined;
  if (codeArgument && typeof args[codeArgument] === 'string') {
    return {
      call,
      kind,
      cellId,
      title: titleOf(call.name),
      code: args[codeArgument] as string
    };
  }
  if (cellId) {
    const cell = (await notebook.getCells()).find(c => c.id === cellId);
    return {
      call,
      kind,
      cellId,
      title: titleOf(call.name),
      code: cell ? cell.source : null
    };
  }
  const details = Object.keys(args).length
    ? JSON.stringify(args, null, 2)
    : undefined;
  return { call, kind, title: titleOf(call.name), code: null, details };
}

const TITLES: Record<string, string> = {
  run_cell: 'Run this cell',
  run_code: 'Run this code in the kernel',
  run_shell: 'Run this shell command',
  install_package: 'Install these packages',
  restart_kernel: 'Restart the kernel (all variables are lost)',
  insert_cell: 'Insert this cell',
  edit_cell: 'Replace the cell with this code',
  delete_cell: 'Delete this cell'
};

function titleOf(name: string): string {
  return TITLES[name] ?? `Call ${name}`;
}
