/**
 * The tools an outside agent (an MCP client of the Jupyter server) gets: the
 * agent's own notebook, kernel and file tools, each with a `notebook`
 * argument naming the notebook it works in, MCP annotations, and the
 * Authorizer action the server asks for before relaying a call.
 *
 * The Python server answers `tools/list` from
 * `jupyterlab_notebook_agent/outside_tools.json`, which
 * `scripts/outside-tools.ts` writes from this module and
 * `__tests__/catalogue.test.ts` holds against it: one definition per tool.
 */
import { agentTools } from '../tools/all-tools';
import type { ITool, ToolKind } from '../tools/registry';

/** The Authorizer's action for a call (Jupyter's `read`, `write`, `execute`). */
export type OutsideAction = 'read' | 'write' | 'execute';

/** One tool as an MCP `Tool`, with the action the server authorizes. */
export interface IOutsideTool {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  annotations: {
    readOnlyHint: boolean;
    destructiveHint: boolean;
    idempotentHint: boolean;
    openWorldHint: boolean;
  };
  /** What the Authorizer is asked before the call is relayed. */
  action: OutsideAction;
  /** Whether the tool works in a notebook (a `notebook` argument it must name). */
  notebook: boolean;
}

/**
 * The agent's tools an outside agent gets, with the Authorizer action of
 * each. Left out: update_plan (the own loop's), run_code (code run outside
 * any cell, unseen in the notebook), restart_kernel, install_package and
 * run_shell (an outside agent has its own shell).
 */
export const OUTSIDE_TOOLS: ReadonlyArray<[string, OutsideAction]> = [
  ['read_notebook', 'read'],
  ['read_cell', 'read'],
  ['read_output', 'read'],
  ['insert_cell', 'execute'],
  ['edit_cell', 'write'],
  ['delete_cell', 'write'],
  ['run_cell', 'execute'],
  ['wait', 'read'],
  ['inspect_variables', 'execute'],
  ['interrupt_kernel', 'execute'],
  ['list_files', 'read'],
  ['read_file', 'read'],
  ['write_file', 'write']
];

/** The argument every notebook tool takes from an outside agent. */
export const NOTEBOOK_ARGUMENT = {
  type: 'string',
  description:
    'The notebook to work in: its path relative to the Jupyter server root, e.g. "analysis.ipynb" ' +
    '(list_notebooks names those open in JupyterLab).'
};

/** The tool that lists the notebooks open in JupyterLab (answered by the server itself). */
export const LIST_NOTEBOOKS: IOutsideTool = {
  name: 'list_notebooks',
  title: 'List the notebooks open in JupyterLab',
  description:
    'The notebooks open in JupyterLab now, for this user. A call on one of them works through the ' +
    'live notebook: the user sees each change and approves it in its sidebar. A notebook not open is ' +
    'worked on through the server (said in each result).',
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  annotations: {
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false
  },
  action: 'read',
  notebook: false
};

function staticKind(tool: ITool<never>): ToolKind | 'varies' {
  return typeof tool.kind === 'function' ? 'varies' : tool.kind;
}

function words(name: string): string {
  const text = name.replace(/_/g, ' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function asOutside(tool: ITool<never>, action: OutsideAction): IOutsideTool {
  const parameters = tool.parameters as {
    properties?: Record<string, unknown>;
    required?: string[];
  };
  const kind = staticKind(tool);
  const inputSchema = {
    ...parameters,
    properties: {
      notebook: NOTEBOOK_ARGUMENT,
      ...(parameters.properties ?? {})
    },
    required: ['notebook', ...(parameters.required ?? [])]
  };
  return {
    name: tool.name,
    title: typeof tool.title === 'string' ? tool.title : words(tool.name),
    description: tool.description,
    inputSchema,
    annotations: {
      readOnlyHint: kind === 'read' && action === 'read',
      destructiveHint:
        tool.name === 'delete_cell' || tool.name === 'write_file',
      idempotentHint: kind === 'read',
      openWorldHint: false
    },
    action,
    notebook: true
  };
}

/** The outside agent's tools, in the order `tools/list` answers them. */
export function outsideCatalogue(): IOutsideTool[] {
  const tools = new Map(agentTools().map(tool => [tool.name, tool]));
  const listed = OUTSIDE_TOOLS.map(([name, action]) => {
    const tool = tools.get(name);
    if (!tool) {
      throw new Error(
        `The outside catalogue names ${name}, which is no agent tool.`
      );
    }
    return asOutside(tool, action);
  });
  return [LIST_NOTEBOOKS, ...listed];
}
