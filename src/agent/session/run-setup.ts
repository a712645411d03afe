/**
 * How a session's run is set up: the session's options (live getters) read
 * once into the run's `RunConfig` (loop/run-config.ts) — its model client,
 * tools, protocol, system prompt and settings — which is then passed whole
 * (pure: it only reads the options). The task runner (runner.ts) calls it
 * when a task starts.
 */
import {
  smallModelSystemPrompt,
  WORKED_EXAMPLE_MIN_B
} from '../context/small-model-prompt';
import { statedBillions } from '../model/capabilities';
import { systemPrompt } from '../context/system-prompt';
import { DEFAULT_APPROVAL_MODE } from '../loop/approval';
import { DEFAULT_CONTEXT_TOKENS, type RunConfig } from '../loop/run-config';
import { DEFAULT_MAX_STEPS } from '../loop/stop-conditions';
import { TextProtocolClient } from '../loop/text-protocol-client';
import { SamplingClient, SMALL_MODEL_TEMPERATURE } from '../model/sampling';
import type { IModelClient } from '../model/types';
import type { IExtraTools } from '../tools/mcp-tools';
import { ToolRegistry, type ITool } from '../tools/registry';
import { DEFAULT_RUN_SETTINGS, type IRunSettings } from '../tools/run-state';
import type { ISessionOptions } from './types';

/**
 * The chat's notice when a small model's server was seen to answer a
 * required tool call in plain text and the run writes code blocks instead.
 */
export const TEXT_FALLBACK_NOTICE =
  'This server let the model answer in plain text when a tool call was required, ' +
  'so this task runs code from the code blocks it writes (the text protocol). ' +
  'To keep tool calls, set "Tool calling" to "native" in the settings.';

/**
 * The configuration of a run in `notebookPath` with `model`: its protocol,
 * tools and system prompt chosen, its settings read; `textTools` are the
 * tools of the text protocol.
 */
export function prepareRun(
  options: ISessionOptions,
  model: IModelClient,
  notebookPath: string,
  textTools: ToolRegistry
): RunConfig {
  const stated = options.toolProtocol?.() ?? 'native';
  const profile = options.profile?.() ?? 'standard';
  const small = profile === 'small' && !!options.smallTools;
  // The small profile depends on a forced call after a guess; a server that
  // does not enforce one (seen on an earlier task of this client) gets the
  // text protocol, whose reply is begun as code (loop/text-protocol-client.ts).
  // A protocol the user chose in the settings is kept.
  const fallback =
    stated === 'native' &&
    profile === 'small' &&
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
  if (profile === 'small') {
    model = new SamplingClient(model, SMALL_MODEL_TEMPERATURE);
  }
  if (protocol === 'text') {
    model = new TextProtocolClient(model, { restateRequest: small });
  }
  const toolNames = tools.specs.map(t => t.name);
  const vision = options.vision?.();
  return {
    model,
    tools,
    profile,
    protocol,
    approvalMode: options.approvalMode?.() ?? DEFAULT_APPROVAL_MODE,
    maxSteps: options.maxSteps?.() ?? DEFAULT_MAX_STEPS,
    runSettings: runSettingsOf(options),
    contextTokens: options.contextTokens?.() ?? DEFAULT_CONTEXT_TOKENS,
    ...(vision ? { vision } : {}),
    ...(profile === 'small' ? { computeFirst: { protocol } } : {}),
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

/** The run settings the options give now, or the defaults. */
export function runSettingsOf(options: ISessionOptions): IRunSettings {
  return options.runSettings?.() ?? DEFAULT_RUN_SETTINGS;
}

/** `registry` plus `extra`'s tools (a built-in tool keeps its name). */
function withTools(registry: ToolRegistry, extra: IExtraTools): ToolRegistry {
  const own = registry.specs.map(spec => registry.get(spec.name)!);
  const added = extra.tools.filter(tool => !registry.get(tool.name));
  return new ToolRegistry([...own, ...added] as ITool<never>[]);
}
