/**
 * The agent's configuration as JupyterLab keeps it: the user's settings
 * (followed as they change), the server's status, the chat's own
 * provider/model choice, and the model client all three select, built once
 * per settings and kept (what a client learns about its server, e.g. that
 * it rejects stream_options, lasts). The sidebar's pickers, the runs and
 * inline completion read it (IAgentConfiguration, ./parts.ts).
 */
import type { ServerConnection } from '@jupyterlab/services';
import type { ISettingRegistry } from '@jupyterlab/settingregistry';
import { Signal, type ISignal } from '@lumino/signaling';
import { ModelClientCache } from '../../agent/model/client-cache';
import type { IModelClient } from '../../agent/model/types';
import type { IModelChoice } from '../../agent/session/types';
import { ValueStore, type IReadable } from '../../agent/value-store';
import { AgentConfig } from '../config/agent-config';
import { localServerLooker } from '../config/local-servers';
import { fetchServerStatus } from '../config/server-status';
import { createModelClient } from './model-factory';
import type { IAgentConfiguration } from './parts';
import {
  PLUGIN_ID,
  readSettings,
  resolveEndpointMode,
  type IAgentSettings
} from '../config/settings';

/** The configuration, and the model client it selects. */
export class AgentConfiguration implements IAgentConfiguration {
  /** `chatChoice`: the chat's own provider/model choice, if it made one. */
  constructor(
    private readonly _serverSettings: ServerConnection.ISettings,
    chatChoice: () => IModelChoice | null
  ) {
    this.config = new AgentConfig(chatChoice);
    this._models = new ModelClientCache((settings: IAgentSettings) =>
      createModelClient(settings, _serverSettings, since =>
        this._modelWait.set(since)
      )
    );
    this.lookForLocalServers = localServerLooker(_serverSettings, () =>
      this.refreshStatus()
    );
  }

  /** The settings, the server's status and the chat's choice, resolved. */
  readonly config: AgentConfig;

  /** Emitted when the settings, the server's status or the chat's model choice change. */
  get configChanged(): ISignal<this, void> {
    return this._configChanged;
  }

  /** Ask the server to look again for model servers on its machine. */
  readonly lookForLocalServers: () => Promise<void>;

  /**
   * Since when (Date.now()) a model server has read the prompt of the
   * chat's request without answering yet; null when none is waiting (its
   * clients say so).
   */
  get modelWait(): IReadable<number | null> {
    return this._modelWait;
  }

  /** The chat's model choice changed (New chat resets it): what the configuration resolves to changes. */
  choiceChanged(): void {
    this._configChanged.emit();
  }

  /** The model client the chat uses now (throws when none is configured). */
  currentModel(): IModelClient {
    const settings = this.config.settings;
    // The chat's provider/model choice is among the server's providers: it
    // applies to proxy mode only.
    return this._models.get(
      settings.endpointMode === 'proxy'
        ? { ...settings, ...this.config.chatChoice() }
        : settings
    );
  }

  /** Ask the server for its endpoints again. */
  async refreshStatus(): Promise<void> {
    const status = await fetchServerStatus(this._serverSettings);
    this.config.serverStatus = status;
    this.config.settings = resolveEndpointMode(this.config.settings, status);
    this._configChanged.emit();
  }

  /** Follow the user's settings (the sidebar's choices are written there). */
  loadSettings(registry: ISettingRegistry): void {
    void registry.load(PLUGIN_ID).then(loaded => {
      this._settings = loaded;
      const apply = () => {
        this.config.settings = resolveEndpointMode(
          readSettings(loaded),
          this.config.serverStatus
        );
        this._configChanged.emit();
      };
      apply();
      loaded.changed.connect(apply);
    });
  }

  /** Change one setting (nothing happens before the settings have loaded). */
  async setSetting(key: keyof IAgentSettings, value: string): Promise<void> {
    await this._settings?.set(key, value);
  }

  private readonly _models: ModelClientCache<IAgentSettings>;
  private readonly _modelWait = new ValueStore<number | null>(null);
  private _settings: ISettingRegistry.ISettings | null = null;
  private readonly _configChanged = new Signal<this, void>(this);
}
