/**
 * A tool defined outside the agent (INotebookAgent.registerTool): its
 * definition and the check of it, apart from the tool it becomes
 * (./external-tool.ts), so the browser checks a registration at once,
 * before the tools and the observations load.
 */
import type { IImageAttachment } from '../types';
import type { ToolKind } from './registry';
import { ToolRegistrationError } from './registration';

/** What an external tool's `execute` may use. */
export interface IExternalToolContext {
  /** Aborted when the user stops the run: stop working then. */
  signal: AbortSignal;
  /** The notebook the run works in, relative to the server root. */
  notebookPath: string;
}

/**
 * What an external tool returns: the observation text, or an object saying
 * whether it worked (`ok: false`: the model reads it as a failure) and
 * optionally images (shown to vision-capable models, downscaled).
 */
export type ExternalToolResult =
  string | { ok?: boolean; output: string; images?: IImageAttachment[] };

/** A tool defined outside the agent. */
export interface IExternalTool {
  /** Unique among the agent's tools: 1–64 letters, digits, "_" or "-". */
  name: string;
  /** What it does and when to use it, for the model. */
  description: string;
  /** JSON schema of the arguments object (`type: "object"`). */
  parameters: Record<string, unknown>;
  /**
   * Its approval kind: `read` never asks, `edit` asks in "Ask before every
   * edit", `run` asks unless the user chose "Run everything", `restart`
   * always asks.
   */
  kind: ToolKind;
  /** What a call does, in words: its card's title and (with "?") its approval question (default: the name in words). */
  title?: string;
  /** It acts outside the notebook (a fix then always asks first). */
  reachesOutside?: boolean;
  /** Do the work; the result is the observation the model reads next. */
  execute(
    args: Record<string, unknown>,
    context: IExternalToolContext
  ): Promise<ExternalToolResult> | ExternalToolResult;
}

const KINDS: ReadonlyArray<ToolKind> = ['read', 'edit', 'run', 'restart'];

/**
 * Throw (a ToolRegistrationError saying what is wrong) when `definition`
 * cannot be offered to a model.
 */
export function checkExternalTool(definition: IExternalTool): void {
  const problem = (text: string) =>
    new ToolRegistrationError(
      `Tool "${String(definition?.name)}" cannot be registered: ${text}.`
    );
  if (!definition || typeof definition.name !== 'string') {
    throw problem('it needs a name');
  }
  if (
    typeof definition.description !== 'string' ||
    !definition.description.trim()
  ) {
    throw problem('it needs a description (the model reads it)');
  }
  const schema = definition.parameters as { type?: unknown } | undefined;
  if (!schema || typeof schema !== 'object' || schema.type !== 'object') {
    throw problem(
      'its parameters must be a JSON schema of an object ({"type": "object", "properties": {…}})'
    );
  }
  if (!KINDS.includes(definition.kind)) {
    throw problem(`its kind must be one of ${KINDS.join(', ')}`);
  }
  if (typeof definition.execute !== 'function') {
    throw problem('it needs an execute function');
  }
  if (definition.title !== undefined && typeof definition.title !== 'string') {
    throw problem('its title must be a string');
  }
}
