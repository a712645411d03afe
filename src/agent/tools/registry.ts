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

/** What a tool may use while it runs. */
export interface IToolContext {
  /** The notebook the run started in. */
  notebook: INotebookPort;
  /** Aborted when the user stops the run. */
  signal: AbortSignal;
}

/** A tool the model can call. */
export interface ITool<TArgs = Record<string, unknown>> extends IToolSpec {
  execute(args: TArgs, context: IToolContext): Promise<IToolResult>;
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
    let args: unknown;
    try {
      args = call.arguments.trim() === '' ? {} : JSON.parse(call.arguments);
    } catch (error) {
      return {
        ok: false,
        output:
          `Error: the arguments of ${call.name} are not valid JSON ` +
          `(${(error as Error).message}). Send a JSON object matching: ` +
          JSON.stringify(tool.parameters)
      };
    }
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
      return await tool.execute(args, context);
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
