/**
 * How a session's run is set up: the session's options, and from them the
 * model client, tools and system prompt of a run (pure: it only reads the
 * options). The task runner (runner.ts) calls it when a task starts.
 */
import {
  smallModelSystemPrompt,
  WORKED_EXAMPLE_MIN_B
} from '../context/small-model-prompt';
import { statedBillions } from '../model/capabilities';
import { systemPrompt } from '../context/system-prompt';
import { TextProtocolClient } from '../loop/text-protocol';
import { SamplingClient, SMALL_MODEL_TEMPERATURE } from '../model/sampling';
import type { IModelClient } from '../model/types';
import type { IExtraTools } from '../tools/mcp-tools';
import { ToolRegistry, type ITool } from '../tools/registry';
import { DEFAULT_RUN_SETTINGS, type IRunSettings } from '../tools/run-state';
import type { ChatMessage } from '../types';
import type { ISessionOptions } from './types';

/** The model, tools and system prompt of one run. */
export interface IRunSetup {
  /** The configured client, wrapped for the text protocol when it needs it. */
  model: IModelClient;
  tools: ToolRegistry;
  /** The conversation's first message for this run. */
  system: ChatMessage;
  /** Small models: data previews and the compute check (loop/compute-check.ts). */
  computeFirst?: { protocol: 'native' | 'text' };
  /** Why this run talks to the model differently from its settings, for the chat. */
  notice?: string;
}

/**
 * The chat's notice when a small model's server was seen to answer a
 * required tool call in plain text and the run writes code blocks instead.
 */
export const TEXT_FALLBACK_NOTICE =
  'This server let the model answer in plain text when a tool call was required, ' +
  'so this task runs code from the code blocks it writes (the text protocol). ' +
  'To keep tool calls, set "Tool calling" to "native" in the settings.';

/**
 * Choose the protocol, tools and system prompt of a run in `notebookPath`
 * with `model`; `textTools` are the tools of the text protocol.
 */
export function prepareRun(
  options: ISessionOptions,
  model: IModelClient,
  notebookPath: string,
  textTools: ToolRegistry
): IRunSetup {
  const stated = options.toolProtocol?.() ?? 'native';
  const small = options.profile?.() === 'small' && !!options.smallTools;
  // The small profile depends on a forced call after a guess; a server that
  // does not enforce one (seen on an earlier task of this client) gets the
  // text protocol, whose reply is begun as code (loop/text-protocol.ts).
  // A protocol the user chose in the settings is kept.
  const fallback =
    stated === 'native' &&
    options.profile?.() === 'small' &&
    !options.toolProtocolChosen?.() &&
    model.forcesToolCalls?.() === false;
  const protocol = fallback ? 'text' : stated;
  const extra =
    protocol === 'native' && !small ? options.extraTools?.() : undefined;
  const base =
    protocol === 'text'
      ? textTools
      : small
        ? options.smallTools!
        : options.tools;
  const tools = extra?.tools.length ? withTools(base, extra) : base;
  if (options.profile?.() === 'small') {
    model = new SamplingClient(model, SMALL_MODEL_TEMPERATURE);
  }
  if (protocol === 'text') {
    model = new TextProtocolClient(model, { restateRequest: small });
  }
  const toolNames = tools.specs.map(t => t.name);
  return {
    model,
    tools,
    ...(options.profile?.() === 'small' ? { computeFirst: { protocol } } : {}),
    ...(fallback ? { notice: TEXT_FALLBACK_NOTICE } : {}),
    system: {
      role: 'system',
      content: small
        ? smallModelSystemPrompt({
            notebookPath,
            toolNames,
            protocol,
            example: (statedBillions(model.model) ?? 1) >= WORKED_EXAMPLE_MIN_B
          })
        : systemPrompt({
            notebookPath,
            protocol,
            toolNames,
            oneToolPerTurn: options.parallelToolCalls?.() === false
          })
    }
  };
}

/** The run settings the options give, or the defaults. */
export function runSettingsOf(options: ISessionOptions): IRunSettings {
  return options.runSettings?.() ?? DEFAULT_RUN_SETTINGS;
}

/** `registry` plus `extra`'s tools (a built-in tool keeps its name). */
function withTools(registry: ToolRegistry, extra: IExtraTools): ToolRegistry {
  const own = registry.specs.map(spec => registry.get(spec.name)!);
  const added = extra.tools.filter(tool => !registry.get(tool.name));
  return new ToolRegistry([...own, ...added] as ITool<never>[]);
}
