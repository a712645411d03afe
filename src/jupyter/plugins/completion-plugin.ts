/**
 * The inline completion plugin: registers Notebook Agent's inline provider
 * with JupyterLab's completer (4.1 and later; on 4.0 the completer has no
 * inline API and this plugin does nothing) and suggests the next cell after
 * a run. Nothing model-related loads at start: the `openai` package and the
 * local model's code load with the first suggestion.
 */
import type {
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { Notification } from '@jupyterlab/apputils';
import { ICompletionProviderManager } from '@jupyterlab/completer';
import { PageConfig } from '@jupyterlab/coreutils';
import { ISettingRegistry } from '@jupyterlab/settingregistry';
import { PLUGIN_ID } from '../config/settings';
import { IAgentCore } from './host-tokens';
import {
  DEFAULT_COMPLETION_SETTINGS,
  readCompletionSettings,
  type ICompletionSettings
} from '../completion/completion-settings';
import type { ICompletionFeature } from '../completion/completion-feature';
import {
  PROVIDER_INFO,
  type IInlineProvider
} from '../completion/inline-provider-info';
import { suggestNextCells } from '../completion/next-cell';

/** The completer manager as this plugin uses it (4.0's has no inline API). */
type ManagerWithInline = {
  registerInlineProvider?(provider: IInlineProvider): void;
};

/** Adds inline completion and next-cell suggestions. */
export const completionPlugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyterlab-notebook-agent:inline-completion',
  description:
    'Notebook Agent: code suggestions as you type, from the endpoint or the in-browser model.',
  autoStart: true,
  requires: [IAgentCore],
  optional: [ICompletionProviderManager, ISettingRegistry],
  activate: (
    app: JupyterFrontEnd,
    { runs, configuration }: Pick<IAgentCore, 'runs' | 'configuration'>,
    manager: ICompletionProviderManager | null,
    registry: ISettingRegistry | null
  ) => {
    const inline = manager as ManagerWithInline | null;
    if (!inline?.registerInlineProvider) {
      return;
    }
    let settings: ICompletionSettings = DEFAULT_COMPLETION_SETTINGS;
    void registry?.load(PLUGIN_ID).then(loaded => {
      const apply = () => (settings = readCompletionSettings(loaded));
      apply();
      loaded.changed.connect(apply);
    });
    // The feature's code loads with the first keystroke in a cell.
    let feature: Promise<ICompletionFeature> | null = null;
    const load = () =>
      (feature ??= import('../completion/completion-feature').then(
        ({ completionFeature }) => {
          const built = completionFeature({
            runs,
            configuration,
            serverSettings: app.serviceManager.serverSettings,
            settings: () => settings,
            notify: message =>
              Notification.warning(message, { autoClose: 15000 })
          });
          // The UI tests and the typing benchmark read what it did last.
          if (
            String(PageConfig.getOption('notebookAgentTestHooks')) === 'true'
          ) {
            (window as { notebookAgentInline?: unknown }).notebookAgentInline =
              built.provider;
          }
          return built;
        },
        // A chunk that failed to load is asked for again next time.
        error => {
          feature = null;
          throw error;
        }
      ));
    inline.registerInlineProvider({
      ...PROVIDER_INFO,
      fetch: async (request, context) =>
        (await load()).provider.fetch(request, context)
    });
    suggestNextCells(app.commands, async () =>
      settings.nextCell ? (await load()).nextCellEnabled() : false
    );
  }
};
