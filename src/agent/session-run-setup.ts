/**
 * How a session's run is set up: the session's options, and from them the
 * model client, tools and system prompt of a run (pure: it only reads the
 * options). AgentSession (session.ts) calls it when a task starts.
 */
import { smallModelSystemPrompt } from './context/small-model-prompt';
import { systemPrompt } from './context/system-prompt';
import type { ApprovalMode } from './loop/approval';
import { TextProtocolClient } from './loop/text-protocol';
import type { IVisionOptions } from './loop/vision';
import type { ToolProtocol } from './model/capabilities';
import type { IModelClient } from './model/types';
import type { ToolRegistry } from './tools/registry';
import { DEFAULT_RUN_SETTINGS, type IRunSettings } from './tools/run-state';
import type { ChatMessage } from './types';

/** What an AgentSession is built with; the functions are read at each run. */
export interface ISessionOptions {
  tools: ToolRegistry;
  maxSteps?: () => number;
  approvalMode?: () => ApprovalMode;
  runSettings?: () => IRunSettings;
  contextTokens?: () => number;
  vision?: () => IVisionOptions;
  /** `text` for models without tool calling. */
  toolProtocol?: () => ToolProtocol;
  /**
   * `small` for small local models: the short prompt and the few tools
   * of `smallTools` (they lose track of long instructions and tool lists).
   */
  profile?: () => 'standard' | 'small';
  /** False for models that garble several tool calls in one turn: the prompt asks for one. */
  parallelToolCalls?: () => boolean;
  smallTools?: ToolRegistry;
}

/** The model, tools and system prompt of one run. */
export interface IRunSetup {
  /** The configured client, wrapped for the text protocol when it needs it. */
  model: IModelClient;
  tools: ToolRegistry;
  /** The conversation's first message for this run. */
  system: ChatMessage;
}

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
  const protocol = options.toolProtocol?.() ?? 'native';
  const small = options.profile?.() === 'small' && !!options.smallTools;
  const tools =
    protocol === 'text'
      ? textTools
      : small
        ? options.smallTools!
        : options.tools;
  if (protocol === 'text') {
    model = new TextProtocolClient(model);
  }
  const toolNames = tools.specs.map(t => t.name);
  return {
    model,
    tools,
    system: {
      role: 'system',
      content:
        small && protocol !== 'text'
          ? smallModelSystemPrompt({ notebookPath, toolNames })
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
