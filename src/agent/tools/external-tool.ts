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
import {
  checkExternalTool,
  type IExternalTool
} from './external-tool-definition';
import type { ITool } from './registry';

export type {
  ExternalToolResult,
  IExternalTool,
  IExternalToolContext
} from './external-tool-definition';

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
