/**
 * Tools from outside the agent (another JupyterLab extension through
 * `INotebookAgent.registerTool`, a tool server): their definition is checked
 * when they are registered, their arguments are validated like ours (the
 * registry's ajv schema check), and what they return is untrusted data: it
 * is cleaned and cut to the observation budget before the model reads it,
 * and a tool that ignores Stop does not hold the run.
 */
import { OUTPUT_BUDGET, truncateMiddle } from '../context/observations';
import { elideDataUris, stripAnsi } from '../context/text';
import type { IImageAttachment, IToolResult } from '../types';
import { checkExternalTool } from './external-tool-check';
import type { ITool, ToolKind } from './registry';

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

/** Images kept from one result (the vision pipeline downscales them). */
const MAX_IMAGES = 4;

/**
 * The agent's tool for `definition`, after checking it (throws a
 * ToolRegistrationError saying what is wrong); `budget` caps the
 * characters of its observations.
 */
export function externalTool(
  definition: IExternalTool,
  budget = OUTPUT_BUDGET
): ITool<Record<string, unknown>> {
  checkExternalTool(definition);
  const { name, description, parameters, kind, title } = definition;
  return {
    name,
    description,
    parameters,
    kind,
    ...(title ? { title } : {}),
    ...(definition.reachesOutside ? { reachesOutside: true } : {}),
    execute: async (args, context) => {
      const result = await untilAborted(
        Promise.resolve().then(() =>
          definition.execute(args, {
            signal: context.signal,
            notebookPath: context.notebook.path
          })
        ),
        context.signal
      );
      return result === STOPPED
        ? { ok: false, output: `Not finished: the user stopped the agent.` }
        : observation(name, result, budget);
    }
  };
}

const STOPPED = Symbol('stopped');

/** `work`'s value, or STOPPED as soon as `signal` aborts. */
function untilAborted<T>(
  work: Promise<T>,
  signal: AbortSignal
): Promise<T | typeof STOPPED> {
  if (signal.aborted) {
    return Promise.resolve(STOPPED);
  }
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(STOPPED);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => {
      signal.removeEventListener('abort', onAbort);
    });
  });
}

/** The observation for what the tool returned: cleaned, within the budget. */
function observation(
  name: string,
  result: unknown,
  budget: number
): IToolResult {
  const value =
    typeof result === 'string'
      ? { ok: true, output: result }
      : (result as { ok?: unknown; output?: unknown; images?: unknown });
  if (!value || typeof value.output !== 'string') {
    return {
      ok: false,
      output: `Error: ${name} returned no text observation (it should return a string or { output: string }).`
    };
  }
  const text = truncateMiddle(
    elideDataUris(stripAnsi(value.output)),
    budget
  ).trim();
  const images = Array.isArray(value.images)
    ? value.images.filter(isImage).slice(0, MAX_IMAGES)
    : [];
  return {
    ok: value.ok !== false,
    output: text || '(no output)',
    ...(images.length ? { images } : {})
  };
}

function isImage(value: unknown): value is IImageAttachment {
  const image = value as IImageAttachment | null;
  return (
    !!image &&
    typeof image.mime === 'string' &&
    image.mime.startsWith('image/') &&
    typeof image.base64 === 'string' &&
    image.base64.length > 0
  );
}
