/**
 * The public face of the agent (INotebookAgent), for other extensions: the
 * sidebar's chat, the models it uses, and tools they register, checked at
 * once and offered to the model once the runs part has loaded (the
 * registration returns at once).
 */
import { DisposableDelegate } from '@lumino/disposable';
import type { ChatSession } from '../../agent/session/chat-session';
import type { ToolQueue } from '../../agent/tools/tool-queue';
import type { INotebookAgent } from '../../tokens';
import type { IAgentConfiguration } from './parts';

/** INotebookAgent over the shell's chat, configuration and tool queue. */
export function agentApi(
  session: ChatSession,
  configuration: IAgentConfiguration,
  tools: ToolQueue
): INotebookAgent {
  const { config } = configuration;
  return {
    registerTool: tool => {
      const registration = tools.register(tool, 'another extension');
      return new DisposableDelegate(() => registration.dispose());
    },
    session,
    models: {
      current: () => configuration.currentModel(),
      choice: () => config.chatChoice(),
      providers: () =>
        config.serverStatus.kind === 'configured'
          ? config.serverStatus.providers
          : []
    }
  };
}
