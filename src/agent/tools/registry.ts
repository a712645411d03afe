/**
 * Tools with JSON-schema parameters, and the registry that runs them.
 *
 * Whatever goes wrong in a call (unknown tool, unparsable or invalid
 * arguments, a tool that throws) becomes an error observation the model can
 * read and correct; it never ends the run.
 */
import type { ValidateFunction } from 'ajv';
import type { INotebookPort } from '../ports';
import type { IToolCall, IToolResult, IToolSpec } from '../types';
import { parseLenientJson } from './lenient-json';
import { RunState } from './run-state';

/** What a tool may use while it runs. */
export interface IToolContext {
  /** The notebook the run started in. */
  notebook: INotebookPort;
  /** Aborted when the user stops the run. */
  signal: AbortSignal;
  /** What the tools of this run remember; a fresh one when omitted. */
  state?: RunState;
}

/**
 * What a tool does, for the approval policy: `read` never changes anything,
 * `edit` changes cells, `run` executes code, `restart` loses the kernel's state.
 */
export type ToolKind = 'read' | 'edit' | 'run' | 'restart';

/** A tool the model can call. */
export interface ITool<TArgs = Record<string, unknown>> extends IToolSpec {
  kind: ToolKind;
  /**
   * The argument that holds code. When a model sends raw code instead of a
   * JSON object (a known failure of real models), it is taken as this one.
   */
  codeArgument?: string;
  execute(
    args: TArgs,
    context: IToolContext & { state: RunState }
  ): Promise<IToolResult>;
}

/** Define a tool; typed helper so `execute` sees its argument type. */
export function defineTool<TArgs>(tool: ITool<TArgs>): ITool<TArgs> {
  return tool;
}

/** The tools of one agent, validated and called by name. */
export class ToolRegistry {
  private _tools = new Map<string, ITool<unknown>>();
  private _validators: Promise<Map<string, ValidateFunction>> | null = null;

  constructor(tools: ReadonlyArray<ITool<never>>) {
    for (const tool of tools) {
      this._tools.set(tool.name, tool as ITool<unknown>);
    }
  }

  /** The tool named `name`, if any. */
  get(name: string): ITool<unknown> | undefined {
    return this._tools.get(name);
  }

  /** Parse a call's arguments as its tool will receive them, or say why not. */
  parseArguments(call: IToolCall): { args: unknown } | { error: string } {
    const tool = this._tools.get(call.name);
    if (!tool) {
      return { error: `there is no tool named "${call.name}"` };
    }
    const text = call.arguments.trim();
    if (text === '') {
      return { args: {} };
    }
    try {
      const value: unknown = parseLenientJson(text);
      if (typeof value === 'string' && tool.codeArgument) {
        return { args: { [tool.codeArgument]: value } };
      }
      return { args: value };
    } catch (error) {
      if (tool.codeArgument && !text.startsWith('{')) {
        return { args: { [tool.codeArgument]: stripFence(text) } };
      }
      return { error: (error as Error).message };
    }
  }

  /** The tool specs to send to the model. */
  get specs(): IToolSpec[] {
    return [...this._tools.values()].map(
      ({ name, description, parameters }) => ({
        name,
        description,
        parameters
      })
    );
  }

  /** Run one tool call; never throws. */
  async call(call: IToolCall, context: IToolContext): Promise<IToolResult> {
    const tool = this._tools.get(call.name);
    if (!tool) {
      return {
        ok: false,
        output:
          `Error: there is no tool named "${call.name}". ` +
          `Available tools: ${[...this._tools.keys()].join(', ')}.`
      };
    }
    const parsed = this.parseArguments(call);
    if ('error' in parsed) {
      return {
        ok: false,
        output:
          `Error: the arguments of ${call.name} are not valid JSON ` +
          `(${parsed.error}). Send a JSON object matching: ` +
          JSON.stringify(tool.parameters)
      };
    }
    const args = parsed.args;
    const validate = (await this._getValidators()).get(call.name)!;
    if (!validate(args)) {
      const problems = (validate.errors ?? [])
        .map(e => `${e.instancePath || 'arguments'} ${e.message}`)
        .join('; ');
      return {
        ok: false,
        output:
          `Error: invalid arguments for ${call.name}: ${problems}. ` +
          `Expected: ${JSON.stringify(tool.parameters)}`
      };
    }
    try {
      return await tool.execute(args, {
        ...context,
        state: context.state ?? new RunState()
      });
    } catch (error) {
      return {
        ok: false,
        output: `Error: ${call.name} failed: ${(error as Error).message ?? String(error)}`
      };
    }
  }

  /** Schema validators, compiled on first use: ajv is not needed at start-up. */
  private _getValidators(): Promise<Map<string, ValidateFunction>> {
    if (!this._validators) {
      this._validators = import('ajv').then(({ default: Ajv }) => {
        const ajv = new Ajv({ allErrors: true, strict: false });
        const validators = new Map<string, ValidateFunction>();
        for (const tool of this._tools.values()) {
          validators.set(tool.name, ajv.compile(tool.parameters));
        }
        return validators;
      });
    }
    return this._validators;
  }
}

/** Raw code sometimes comes wrapped in a markdown fence: unwrap it. */
function stripFence(text: string): string {
  const match = /^```[\w-]*\n([\s\S]*?)\n?```$/.exec(text.trim());
  return match ? match[1] : text;
}
