/**
 * Inline completion, built on its first use (the plugin imports this module
 * lazily, so JupyterLab's start loads none of it): the provider with its
 * source choice and sources, and whether a next cell may be suggested.
 */
import type { ServerConnection } from '@jupyterlab/services';
import { chooseCompletionSource } from '../../agent/completion/source-choice';
import type { IAgentConfiguration, IAgentRuns } from '../core/parts';
import { localModelStatus } from '../local-model/local-model-status';
import type { ICompletionSettings } from './completion-settings';
import { CompletionSources } from './completion-sources';
import { AgentInlineProvider } from './inline-provider';

/** What the feature is built from. */
export interface ICompletionFeatureOptions {
  runs: IAgentRuns;
  configuration: IAgentConfiguration;
  serverSettings: ServerConnection.ISettings;
  settings(): ICompletionSettings;
  notify(message: string): void;
}

/** The built feature. */
export interface ICompletionFeature {
  provider: AgentInlineProvider;
  /** Whether a next cell may be suggested now (on, and a source at hand). */
  nextCellEnabled(): boolean;
}

/** Build the feature. */
export function completionFeature(
  options: ICompletionFeatureOptions
): ICompletionFeature {
  const config = options.configuration.config;
  const sources = new CompletionSources(
    () => config.settings,
    options.serverSettings
  );
  const choice = () => {
    const settings = options.settings();
    return chooseCompletionSource({
      setting: settings.source,
      settingModel: settings.model,
      endpointMode: config.settings.endpointMode,
      agentModel: config.modelName(),
      agentProvider: config.selectedProvider()?.name ?? '',
      providers:
        config.serverStatus.kind === 'configured'
          ? config.serverStatus.providers
          : [],
      localLoaded: ['ready', 'generating'].includes(
        localModelStatus.getSnapshot().stage
      )
    });
  };
  const provider = new AgentInlineProvider({
    settings: options.settings,
    choice,
    source: usable => sources.get(usable),
    agentBusy: () => options.runs.session.busy,
    notify: options.notify
  });
  return {
    provider,
    nextCellEnabled: () =>
      options.settings().nextCell && choice().kind !== 'none'
  };
}
