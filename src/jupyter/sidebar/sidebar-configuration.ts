/**
 * What the sidebar shows of the configuration: the model line, the
 * provider and model pickers (with each provider's models, asked of its
 * endpoint once), the approval mode and the direct-mode warning, written
 * to the store the sidebar's views subscribe to.
 */
import type { ServerConnection } from '@jupyterlab/services';
import type { TranslationBundle } from '@jupyterlab/translation';
import {
  INITIAL_CONFIG,
  type ISidebarConfig
} from '../../components/config/sidebar-config';
import { readableModelName } from '../../agent/model/model-label';
import { ValueStore } from '../../agent/value-store';
import type { AgentConfig } from '../config/agent-config';
import { fetchProviderModels } from '../config/server-status';

/** Keeps the sidebar's configuration display up to date. */
export class SidebarConfiguration {
  /** What the views show; they subscribe to it. */
  readonly store = new ValueStore<ISidebarConfig>(INITIAL_CONFIG);

  /** Each provider's models, from its `/models` (or its profile). */
  private readonly _providerModels = new Map<string, string[]>();

  constructor(
    private readonly _config: AgentConfig,
    private readonly _serverSettings: ServerConnection.ISettings,
    private readonly _trans: TranslationBundle
  ) {}

  /** Show the configuration as it stands now. */
  refresh(): void {
    const config = this._config;
    const { settings, serverStatus } = config;
    const provider = config.selectedProvider();
    if (provider?.found) {
      // A found server's models are those it listed when it was last looked at.
      this._providerModels.set(provider.name, provider.found.models);
    } else if (provider && !this._providerModels.has(provider.name)) {
      // Ask the endpoint once which models it has; the picker appears when it answers.
      this._providerModels.set(provider.name, provider.models);
      void fetchProviderModels(this._serverSettings, provider.name).then(
        models => {
          if (models.length) {
            this._providerModels.set(provider.name, models);
            this.refresh();
          }
        }
      );
    }
    // The header names the model as the user knows it (not a GGUF file's
    // path); the tooltip and the requests keep its id.
    const modelId = this._modelLabel(name => name);
    const modelLabel = this._modelLabel(readableModelName);
    this.store.set({
      serverStatus,
      mode: settings.endpointMode,
      modelLabel,
      ...(modelId !== modelLabel ? { modelId } : {}),
      approvalMode: settings.approvalMode,
      direct:
        settings.endpointMode === 'direct'
          ? { baseUrl: settings.baseUrl, hasKey: settings.apiKey !== '' }
          : null,
      providers:
        settings.endpointMode === 'proxy' &&
        serverStatus.kind === 'configured' &&
        provider
          ? {
              names: serverStatus.providers.map(p => p.name),
              selected: provider.name,
              models:
                this._providerModels.get(provider.name) ?? provider.models,
              model: config.modelName(),
              hasKey: provider.hasKey,
              // A server found on the machine, or a key-less local
              // endpoint, gets no key.
              canStoreKey:
                serverStatus.allowUserKeys &&
                !provider.found &&
                provider.takesKey,
              found: provider.found && {
                label: provider.found.label,
                models: (
                  this._providerModels.get(provider.name) ??
                  provider.found.models
                ).length
              }
            }
          : null
    });
  }

  /** The model line: which model answers (as `show` names it), and where it runs. */
  private _modelLabel(show: (model: string) => string): string {
    const config = this._config;
    const { settings, serverStatus } = config;
    const trans = this._trans;
    if (settings.endpointMode === 'direct') {
      return (
        show(settings.model) ||
        settings.azureDeployment ||
        trans.__('no model set')
      );
    }
    if (config.local) {
      return trans.__(
        '%1 (in this browser)',
        config.localEntry()?.id ?? settings.localModel
      );
    }
    return (
      show(config.modelName()) ||
      (serverStatus.kind === 'configured' ? trans.__('server default') : '')
    );
  }
}
