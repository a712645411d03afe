/**
 * How the chat's tasks run, read from the configuration at each run: the
 * tools (the agent's own, other extensions' registered through the queue,
 * the MCP servers'), the profile and protocol the model calls for, the
 * settings, vision and the project rules.
 */
import type { ISessionOptions } from '../../agent/session/types';
import { agentTools } from '../../agent/tools/all-tools';
import { externalTool } from '../../agent/tools/external-tool';
import { mcpToolSet } from '../../agent/tools/mcp-tools';
import { ToolRegistry } from '../../agent/tools/registry';
import { smallModelTools } from '../../agent/tools/small-model-tools';
import { runSettings } from '../config/settings';
import { canvasImageResizer } from '../core/image-resizer';
import type { IRunsShell } from '../core/runs-seam';

/** The session options of the shell's chat; its tool queue now adds to their registry. */
export function runOptions(shell: IRunsShell): ISessionOptions {
  const { config } = shell.configuration;
  const tools = new ToolRegistry(agentTools());
  shell.tools.attach((definition, owner) =>
    tools.register(externalTool(definition), owner)
  );
  return {
    tools,
    extraTools: mcpToolSet(shell.mcp),
    smallTools: new ToolRegistry(smallModelTools()),
    profile: () =>
      config.local || config.capabilities().profile === 'small'
        ? 'small'
        : 'standard',
    parallelToolCalls: () =>
      !config.local && config.capabilities().parallelToolCalls,
    maxSteps: () => config.settings.maxSteps,
    approvalMode: () => config.settings.approvalMode,
    runSettings: () => runSettings(config.settings),
    contextTokens: () => config.contextTokens(),
    toolProtocol: () => config.toolProtocol(),
    toolProtocolChosen: () => config.settings.toolCalling !== 'auto',
    vision: () => ({
      enabled: config.visionEnabled(),
      maxSide: config.settings.maxImageSide,
      resizer: canvasImageResizer
    }),
    projectRules: path => shell.rules.read(path)
  };
}
