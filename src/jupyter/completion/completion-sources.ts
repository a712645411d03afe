/**
 * The completion sources, built from the choice (source-choice.ts): the
 * endpoint through the same client the agent uses (the server proxy adds
 * the key; direct mode calls the endpoint), or the in-browser model, whose
 * code loads on the first suggestion. One client per choice, kept.
 */
import type { ServerConnection } from '@jupyterlab/services';
import type { SourceChoice } from '../../agent/completion/source-choice';
import type {
  ICompletionRequest,
  ICompletionSource
} from '../../agent/completion/types';
import type { IModelClient } from '../../agent/model/types';
import type { IAgentSettings } from '../config/settings';
import { createModelClient } from '../core/model-factory';
import { localModelStatus } from '../local-model/local-model-status';

type Usable = Exclude<SourceChoice, { kind: 'none' }>;

/** Builds and keeps the sources. */
export class CompletionSources {
  private _key = '';
  private _source: ICompletionSource | null = null;

  constructor(
    private readonly _agentSettings: () => IAgentSettings,
    private readonly _serverSettings: ServerConnection.ISettings
  ) {}

  /** The source for `choice` with the current settings. */
  get(choice: Usable): ICompletionSource {
    const settings = this._agentSettings();
    const key = JSON.stringify([choice, settings]);
    if (key !== this._key || !this._source) {
      this._key = key;
      this._source =
        choice.kind === 'local'
          ? new LazyLocalCompletion(settings)
          : endpointSource(settings, choice, this._serverSettings);
    }
    return this._source;
  }
}

function endpointSource(
  settings: IAgentSettings,
  choice: Extract<SourceChoice, { kind: 'endpoint' }>,
  serverSettings: ServerConnection.ISettings
): ICompletionSource {
  const client: IModelClient & Partial<ICompletionSource> = createModelClient(
    {
      ...settings,
      // In local mode the agent runs in the browser; suggestions from an endpoint go through the proxy.
      endpointMode:
        settings.endpointMode === 'local' ? 'proxy' : settings.endpointMode,
      provider: choice.provider,
      model: choice.model
    },
    serverSettings
  );
  if (!client.complete) {
    throw new Error(`${client.model} cannot complete code`);
  }
  return client as ICompletionSource;
}

/** The in-browser model, imported (and loaded) on the first suggestion. */
class LazyLocalCompletion implements ICompletionSource {
  constructor(private readonly _settings: IAgentSettings) {}

  get model(): string {
    return this._settings.localModel || 'local model';
  }

  notReady(): string | null {
    const status = localModelStatus.getSnapshot();
    switch (status.stage) {
      case 'ready':
      case 'generating':
        return null;
      case 'error':
        return `The in-browser model could not load: ${status.error ?? 'see the sidebar'}.`;
      case 'idle':
        void import('../local-model/local-model-factory')
          .then(({ localModelClient }) =>
            localModelClient(this._settings).load()
          )
          // The status store (and the sidebar) says what failed.
          .catch(() => undefined);
        return 'The in-browser model is loading: suggestions start once it is ready.';
      case 'download':
      case 'compiling':
        return `The in-browser model is loading (${Math.round(status.percent)} %): suggestions start once it is ready.`;
    }
  }

  async *complete(
    request: ICompletionRequest,
    signal: AbortSignal
  ): AsyncIterable<string> {
    const { localModelClient } =
      await import('../local-model/local-model-factory');
    yield* localModelClient(this._settings).complete(request, signal);
  }
}
