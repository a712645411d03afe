/**
 * The names of the agent's own tools (./all-tools.ts), without the tools:
 * a tool another extension registers before the tools have loaded
 * (./tool-queue.ts) is refused a name they hold, at once.
 * agent-tool-names.test.ts holds this list against the tools.
 */

/** The names of `agentTools()`, in its order. */
export const AGENT_TOOL_NAMES: ReadonlyArray<string> = [
  'update_plan',
  'read_notebook',
  'read_cell',
  'read_output',
  'insert_cell',
  'edit_cell',
  'delete_cell',
  'run_cell',
  'wait',
  'run_code',
  'inspect_variables',
  'interrupt_kernel',
  'restart_kernel',
  'install_package',
  'list_files',
  'read_file',
  'write_file',
  'run_shell'
];
