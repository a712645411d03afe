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
import { runsNamedCell } from './named-cell';
import { checkToolName, nameTaken } from './registration';

export { ToolRegistrationError } from './registration';
import { RunState } from './run-state';
import type { IRunsLater } from './runs-later';

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
 * `edit` changes cells (or creates a file), `run` executes code, `restart`
 * loses the kernel's state, `replace` overwrites a file's content (which the
 * notebook's undo does not hold: it always asks).
 */
export type ToolKind = 'read' | 'edit' | 'run' | 'restart' | 'replace';

/**
 * What a call's approval shows and asks as, when its arguments alone do not
 * say it (`write_file`: whether the file exists, and the diff).
 */
export interface IToolPreview {
  /** The call's kind now (default: the tool's `kind`). */
  kind?: ToolKind;
  /** The card's question (default: the tool's `title`). */
  title?: string;
  /** The code (or text) to show, editable; null for none. */
  code?: string | null;
  /** A unified diff of what the call changes, shown read-only. */
  diff?: string;
  /** The call is refused with this observation before anyone is asked. */
  refused?: string;
  /**
   * The call leaves a file that runs or steers later (tools/runs-later.ts):
   * the approval policy asks for it whatever the kind says.
   */
  runsLater?: IRunsLater;
}

/**
 * A tool the model can call. It carries its own approval rules (`kind`,
 * `title`, `cellOf`, `approvedWithCell`, `reachesOutside`): the loop and the
 * approval policy read them and know no tool by name.
 */
export interface ITool<TArgs = Record<string, unknown>> extends IToolSpec {
  /**
   * What the call does, for the approval policy (loop/approval.ts); a
   * function when it depends on the arguments (`insert_cell` with
   * `run: true` runs code, without it only edits).
   */
  kind: ToolKind | ((args: TArgs) => ToolKind);
  /**
   * What a call does, in words: the title of its card in the transcript
   * and (with "?") the question of its approval card, e.g. "Run this
   * cell", "Read the notebook"; a function when it depends on the
   * arguments (e.g. "Insert and run this cell" when `run` is set).
   * Default: the name in words ("list files" for `list_files`).
   */
  title?: string | ((args: TArgs) => string);
  /**
   * The notebook cell a call acts on, from its arguments: its approval card
   * shows that cell's code, a reopened chat knows which cell a run left
   * running, and `approvedWithCell` applies to it. The loop reads no
   * argument by name.
   */
  cellOf?(args: TArgs): string | undefined;
  /**
   * A call on a cell the user approved up front (the cell "Fix this cell"
   * fixes: the call's `cellOf`) needs no approval.
   */
  approvedWithCell?: boolean;
  /**
   * It acts outside the notebook and its kernel's variables (installs
   * packages, runs shell commands): workflows that must ask before such
   * calls (a fix) ask whatever the approval mode.
   */
  reachesOutside?: boolean;
  /**
   * Every call asks the user, whatever the approval mode (an MCP tool its
   * server's config does not auto-approve: what it does is not known here).
   */
  asksAlways?: boolean;
  /**
   * It waits for a cell left running: where such a tool is offered, an
   * answer given over cells still running is sent back once for it
   * (loop/left-running.ts).
   */
  waitsForCells?: boolean;
  /**
   * The schema the registry checks arguments with, when not `parameters`
   * (which the model reads): a bounded copy of an outside server's schema
   * (bounded-schema.ts), that server checking the full one itself.
   */
  argumentSchema?: Record<string, unknown>;
  /**
   * The argument that holds code. When a model sends raw code instead of a
   * JSON object (a known failure of real models), it is taken as this one.
   */
  codeArgument?: string;
  /**
   * Looks at the call before the approval policy does (its kind and card
   * may depend on the world, not only the arguments). It runs before every
   * call, asked or not; `refused` (or throwing) refuses the call.
   */
  preview?(
    args: TArgs,
    context: IToolContext & { state: RunState }
  ): Promise<IToolPreview>;
  execute(
    args: TArgs,
    context: IToolContext & { state: RunState }
  ): Promise<IToolResult>;
}

/**
 * The title of a call of `tool` with `args` (see `ITool.title`); never
 * throws (a title function that fails gives the default).
 */
export function toolTitle(tool: ITool<unknown>, args: unknown): string {
  try {
    const title =
      typeof tool.title === 'function' ? tool.title(args) : tool.title;
    if (typeof title === 'string' && title.trim()) {
      return title.trim();
    }
  } catch {
    // The default below.
  }
  return nameInWords(tool.name);
}

/** `read_notebook` → "Read notebook": a tool without a title still reads as words. */
export function nameInWords(name: string): string {
  const words = name.replace(/[_-]+/g, ' ').trim();
  return words ? words[0].toUpperCase() + words.slice(1) : name;
}

/** Picks tools by their definition (e.g. those that reach outside the notebook). */
export type ToolFilter = (tool: ITool<unknown>) => boolean;

/** Define a tool; typed helper so `execute` sees its argument type. */
export function defineTool<TArgs>(tool: ITool<TArgs>): ITool<TArgs> {
  return tool;
}

/** Handle of a registered tool: `dispose` takes it out of the registry. */
export interface IToolRegistration {
  readonly isDisposed: boolean;
  dispose(): void;
}

/**
 * The tools of one agent, validated and called by name. Tools can be added
 * while it is in use (another extension's, a tool server's): every model
 * request reads the tools as they are then.
 */
export class ToolRegistry {
  private _tools = new Map<string, ITool<unknown>>();
  /** Each call's parsed arguments, by the call object (see parseArguments). */
  private readonly _parsed = new WeakMap<
    object,
    {
      tool: ITool<unknown> | undefined;
      parsed: { args: unknown } | { error: string };
    }
  >();
  /** Who registered each tool that is not built in (for clash messages). */
  private _owners = new Map<string, string>();
  private _validators = new Map<ITool<unknown>, Promise<ValidateFunction>>();

  constructor(tools: ReadonlyArray<ITool<never>>) {
    for (const tool of tools) {
      this._tools.set(tool.name, tool as ITool<unknown>);
    }
  }

  /**
   * Add `tool` (registered by `owner`, for messages); throws a
   * ToolRegistrationError when its name is invalid or already taken.
   */
  register(tool: ITool<never>, owner = 'an extension'): IToolRegistration {
    checkToolName(tool.name);
    if (this._tools.has(tool.name)) {
      throw nameTaken(
        tool.name,
        this._owners.get(tool.name) ?? 'Notebook Agent'
      );
    }
    const registered = tool as ITool<unknown>;
    this._tools.set(tool.name, registered);
    this._owners.set(tool.name, owner);
    let disposed = false;
    return {
      get isDisposed() {
        return disposed;
      },
      dispose: () => {
        if (!disposed && this._tools.get(tool.name) === registered) {
          this._tools.delete(tool.name);
          this._owners.delete(tool.name);
          this._validators.delete(registered);
        }
        disposed = true;
      }
    };
  }

  /** Whether some tool offered satisfies `test` (the loop asks by property, never by name). */
  offers(test: (tool: ITool<unknown>) => boolean): boolean {
    return [...this._tools.values()].some(test);
  }

  /** The tool named `name`, if any. */
  get(name: string): ITool<unknown> | undefined {
    return this._tools.get(name);
  }

  /** The title of `call` in words (its tool's `title`; the name in words for unknown tools). */
  titleOf(call: IToolCall): string {
    const tool = this._tools.get(call.name);
    if (!tool) {
      return nameInWords(call.name);
    }
    const parsed = this.parseArguments(call);
    return toolTitle(tool, 'args' in parsed ? (parsed.args ?? {}) : {});
  }

  /**
   * Parse a call's arguments as its tool will receive them, or say why not.
   * Once per call: its title, kind, repeat check and execution all read
   * the same parse (a call is not changed after the model sent it; an
   * edited one is a new object).
   */
  parseArguments(call: {
    name: string;
    arguments: string;
  }): { args: unknown } | { error: string } {
    const known = this._parsed.get(call);
    if (known && known.tool === this._tools.get(call.name)) {
      return known.parsed;
    }
    const parsed = this._parse(call);
    this._parsed.set(call, { tool: this._tools.get(call.name), parsed });
    return parsed;
  }

  private _parse(call: {
    name: string;
    arguments: string;
  }): { args: unknown } | { error: string } {
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

  /**
   * What `call` does (its tool's kind for these arguments), or undefined for
   * an unknown tool. Unparsable arguments count as the tool's most
   * cautious reading: a kind that depends on them is asked as `run`.
   */
  kindOf(call: { name: string; arguments: string }): ToolKind | undefined {
    const tool = this._tools.get(call.name);
    if (!tool) {
      return undefined;
    }
    if (typeof tool.kind !== 'function') {
      return tool.kind;
    }
    const parsed = this.parseArguments(call);
    return 'error' in parsed ? 'run' : toolKind(tool, parsed.args);
  }

  /** The cell `call` acts on (its tool's `cellOf`), when its arguments say. */
  cellOfCall(call: { name: string; arguments: string }): string | undefined {
    const tool = this._tools.get(call.name);
    const parsed = tool?.cellOf ? this.parseArguments(call) : null;
    if (!tool?.cellOf || !parsed || 'error' in parsed) {
      return undefined;
    }
    try {
      return tool.cellOf(parsed.args);
    } catch {
      return undefined;
    }
  }

  /** The code `call` carries (its tool's `codeArgument`), when it carries any. */
  codeOfCall(call: { name: string; arguments: string }): string | undefined {
    const tool = this._tools.get(call.name);
    const parsed = tool?.codeArgument ? this.parseArguments(call) : null;
    if (!tool?.codeArgument || !parsed || 'error' in parsed) {
      return undefined;
    }
    const code = (parsed.args as Record<string, unknown> | null)?.[
      tool.codeArgument
    ];
    return typeof code === 'string' ? code : undefined;
  }

  /** The cell `call` runs or waits for (`runsNamedCell`), when its arguments say. */
  runCellOfCall(call: { name: string; arguments: string }): string | undefined {
    const tool = this._tools.get(call.name);
    return tool && runsNamedCell(tool) ? this.cellOfCall(call) : undefined;
  }

  /** Whether `call` runs code (its tool's kind for these arguments is `run`). */
  runsCode(call: { name: string; arguments: string }): boolean {
    return this.kindOf(call) === 'run';
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

  /**
   * The tool and arguments of `call` once they are valid (a known tool,
   * parsable arguments that match its schema), else the error observation
   * that tells the model what to correct.
   */
  async check(
    call: IToolCall
  ): Promise<
    { tool: ITool<unknown>; args: unknown } | { refused: IToolResult }
  > {
    const tool = this._tools.get(call.name);
    if (!tool) {
      return {
        refused: {
          ok: false,
          output:
            `Error: there is no tool named "${call.name}". ` +
            `Available tools: ${[...this._tools.keys()].join(', ')}.`
        }
      };
    }
    const parsed = this.parseArguments(call);
    if ('error' in parsed) {
      return {
        refused: {
          ok: false,
          output:
            `Error: the arguments of ${call.name} are not valid JSON ` +
            `(${parsed.error}). Send a JSON object matching: ` +
            JSON.stringify(tool.parameters)
        }
      };
    }
    let validate: ValidateFunction;
    try {
      validate = await this._validator(tool);
    } catch (error) {
      return {
        refused: {
          ok: false,
          output: `Error: ${call.name} cannot be called: its argument schema is invalid (${(error as Error).message}).`
        }
      };
    }
    let valid: boolean;
    try {
      valid = validate(parsed.args);
    } catch (error) {
      // A recursive schema and deeply nested arguments overflow the stack.
      return {
        refused: {
          ok: false,
          output: `Error: the arguments of ${call.name} could not be checked (${(error as Error).message}); send simpler arguments.`
        }
      };
    }
    if (!valid) {
      const problems = (validate.errors ?? [])
        .map(e => `${e.instancePath || 'arguments'} ${e.message}`)
        .join('; ');
      return {
        refused: {
          ok: false,
          output:
            `Error: invalid arguments for ${call.name}: ${problems}. ` +
            `Expected: ${JSON.stringify(tool.parameters)}`
        }
      };
    }
    return { tool, args: parsed.args };
  }

  /** Run one tool call; never throws. */
  async call(call: IToolCall, context: IToolContext): Promise<IToolResult> {
    const checked = await this.check(call);
    if ('refused' in checked) {
      return checked.refused;
    }
    try {
      return await checked.tool.execute(checked.args, {
        ...context,
        state: context.state ?? new RunState()
      });
    } catch (error) {
      return toolFailure(call.name, error);
    }
  }

  /** The tool's schema validator, compiled on first use: ajv is not needed at start-up. */
  private _validator(tool: ITool<unknown>): Promise<ValidateFunction> {
    let validator = this._validators.get(tool);
    if (!validator) {
      // A compiler per tool: a schema's "$id" stays free for the tool
      // registered again after a dispose.
      validator = import('ajv').then(({ default: Ajv }) =>
        new Ajv({ allErrors: true, strict: false }).compile(
          tool.argumentSchema ?? tool.parameters
        )
      );
      this._validators.set(tool, validator);
    }
    return validator;
  }
}

/** The observation of a tool that threw: the model reads it and may correct the call. */
export function toolFailure(name: string, error: unknown): IToolResult {
  return {
    ok: false,
    output: `Error: ${name} failed: ${(error as Error)?.message ?? String(error)}`
  };
}

/** What a call of `tool` with (valid) `args` does, for the approval policy. */
export function toolKind<TArgs>(tool: ITool<TArgs>, args: TArgs): ToolKind {
  if (typeof tool.kind !== 'function') {
    return tool.kind;
  }
  try {
    return tool.kind(args);
  } catch {
    // Arguments the kind cannot read (not yet validated): ask as for code.
    return 'run';
  }
}

/** Raw code sometimes comes wrapped in a markdown fence: unwrap it. */
function stripFence(text: string): string {
  const match = /^```[\w-]*\n([\s\S]*?)\n?```$/.exec(text.trim());
  return match ? match[1] : text;
}
