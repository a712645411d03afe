/**
 * What applies to the next request: the settings, the server's status and
 * the chat's own provider/model choice, resolved into the provider, the
 * model name, its capabilities, the local model and how tools are offered.
 * The plugin keeps one, updates it as settings and status change, and hands
 * its answers to the session as functions (read at each run).
 */
import {
  capabilitiesFor,
  type IModelCapabilities,
  type ToolProtocol
} from '../../agent/model/capabilities';
import {
  findLocalModel,
  localToolProtocol,
  resolveCatalogue,
  type ILocalModelEntry
} from '../../agent/model/local/catalogue';
import type { IModelChoice } from '../../agent/session';
import type { IProviderInfo, ServerStatus } from './server-status';
import { DEFAULT_SETTINGS, type IAgentSettings } from './settings';

/** The agent's configuration as it stands. */
export class AgentConfig {
  /** The settings (with the endpoint mode resolved against the server). */
  settings: IAgentSettings = { ...DEFAULT_SETTINGS };
  /** What the server said about its endpoints. */
  serverStatus: ServerStatus = { kind: 'unknown' };

  /** `chatChoice`: the chat's own provider/model choice, if it made one. */
  constructor(private readonly _chatChoice: () => IModelChoice | null) {}

  /** This chat's provider and model, else the settings' (the defaults for new chats). */
  chatChoice(): IModelChoice {
    return (
      this._chatChoice() ?? {
        provider: this.settings.provider,
        model: this.settings.model
      }
    );
  }

  /** The provider requests go to: the chat's, else the server's default. */
  selectedProvider(): IProviderInfo | null {
    if (this.serverStatus.kind !== 'configured') {
      return null;
    }
    const { providers, defaultProvider } = this.serverStatus;
    return (
      providers.find(p => p.name === this.chatChoice().provider) ??
      providers.find(p => p.name === defaultProvider) ??
      null
    );
  }

  /** The model requests will name: the chat's, else the provider's or the server's default. */
  modelName(): string {
    return (
      this.chatChoice().model ||
      this.selectedProvider()?.defaultModel ||
      (this.serverStatus.kind === 'configured'
        ? (this.serverStatus.model ?? '')
        : '')
    );
  }

  /** True when the model runs in this browser. */
  get local(): boolean {
    return this.settings.endpointMode === 'local';
  }

  /** The model's capabilities: the built-in table, corrected by the settings. */
  capabilities(): IModelCapabilities {
    return capabilitiesFor(this.modelName(), this.settings.modelCapabilities);
  }

  /** The vision setting, unless a capability override says what this model can do. */
  visionEnabled(): boolean {
    const stated = this.capabilities().vision;
    return stated !== capabilitiesFor(this.modelName()).vision
      ? stated
      : this.settings.vision;
  }

  /** The local model chosen in the settings (null when not in local mode). */
  localEntry(): ILocalModelEntry | null {
    return this.local
      ? (findLocalModel(
          resolveCatalogue(this.settings.localModels).models,
          this.settings.localModel
        ) ?? null)
      : null;
  }

  /**
   * How tools are offered: the setting, else what the model supports (a
   * local model without tool-call markers writes code blocks instead).
   */
  toolProtocol(): ToolProtocol {
    if (this.settings.toolCalling !== 'auto') {
      return this.settings.toolCalling;
    }
    if (this.local) {
      const entry = this.localEntry();
      return entry ? localToolProtocol(entry) : 'native';
    }
    return this.capabilities().tools;
  }

  /** The context window the agent budgets for. */
  contextTokens(): number {
    return (
      this.settings.contextWindowTokens ||
      this.localEntry()?.contextTokens ||
      this.capabilities().contextTokens
    );
  }
}
