/**
 * Where inline completion asks, from the setting and what the server offers:
 * local first. `auto` uses the agent's model when it is a code model with a
 * fill-in-the-middle format, else the smallest such model on a server the
 * Jupyter server found on its machine (fast, free, nothing leaves it), else
 * a configured one, else nothing; in local mode the in-browser model, once
 * it is loaded (typing never starts a download of hundreds of MB).
 */
import type { IProviderInfo } from '../model/provider-info';
import { statedBillions } from '../model/capabilities';
import type { CompletionSourceKind } from './completion-policy';
import { fimFormatFor } from './fim-format';

/** What the choice reads. */
export interface ISourceChoiceInput {
  setting: CompletionSourceKind;
  /** The inline completion model setting ('' = the agent's). */
  settingModel: string;
  /** Where the agent's requests go. */
  endpointMode: 'proxy' | 'direct' | 'local';
  /** The agent's model and provider ('' = the default). */
  agentModel: string;
  agentProvider: string;
  /** The server's providers, found servers included. */
  providers: ReadonlyArray<IProviderInfo>;
  /** The in-browser model is loaded. */
  localLoaded: boolean;
}

/** Where suggestions come from, or why there are none. */
export type SourceChoice =
  | {
      kind: 'endpoint';
      provider: string;
      model: string;
      /** The agent uses the same server and model. */
      sharesAgentModel: boolean;
      /** The server runs on this machine. */
      onThisMachine: boolean;
    }
  | { kind: 'local'; sharesAgentModel: boolean; onThisMachine: true }
  | { kind: 'none'; reason: string };

const LOOPBACK =
  /^https?:\/\/(?:127\.\d+\.\d+\.\d+|localhost|\[::1\])(?::\d+)?(?:\/|$)/i;

/** Choose the source. */
export function chooseCompletionSource(
  input: ISourceChoiceInput
): SourceChoice {
  const local = (): SourceChoice => ({
    kind: 'local',
    sharesAgentModel: input.endpointMode === 'local',
    onThisMachine: true
  });
  switch (input.setting) {
    case 'off':
      return { kind: 'none', reason: 'Inline completion is off.' };
    case 'local':
      return local();
    case 'endpoint':
      return endpoint(
        input,
        input.agentProvider,
        input.settingModel || input.agentModel
      );
    case 'auto':
      break;
  }
  if (input.endpointMode === 'local') {
    return input.localLoaded
      ? local()
      : {
          kind: 'none',
          reason:
            'The in-browser model is not loaded yet (it loads with the agent’s first task); set Inline completion to "local" to load it for suggestions.'
        };
  }
  const wanted = input.settingModel || input.agentModel;
  if (fimFormatFor(wanted).name !== 'plain') {
    return endpoint(input, input.agentProvider, wanted);
  }
  const found = codeModel(input.providers.filter(p => p.found));
  const configured = codeModel(input.providers.filter(p => !p.found));
  const pick = found ?? configured;
  if (pick) {
    return endpoint(input, pick.provider, pick.model);
  }
  return {
    kind: 'none',
    reason: `${wanted || 'The agent’s model'} has no fill-in-the-middle format and no code model (Qwen2.5-Coder, StarCoder, DeepSeek-Coder…) was found on this machine's model servers: set "Inline completion model", or "Inline completion" to "endpoint" for plain completion.`
  };
}

function endpoint(
  input: ISourceChoiceInput,
  provider: string,
  model: string
): SourceChoice {
  const info =
    input.providers.find(p => p.name === provider) ??
    (provider ? undefined : input.providers[0]);
  return {
    kind: 'endpoint',
    provider,
    model,
    sharesAgentModel:
      input.endpointMode !== 'local' &&
      provider === input.agentProvider &&
      model === input.agentModel,
    onThisMachine: !!info && (!!info.found || LOOPBACK.test(info.baseUrl))
  };
}

/** The smallest model with a FIM format among `providers` (small is fast to type with). */
function codeModel(
  providers: ReadonlyArray<IProviderInfo>
): { provider: string; model: string } | null {
  let best: { provider: string; model: string; size: number } | null = null;
  for (const provider of providers) {
    const models = provider.found?.models ?? provider.models;
    for (const model of models) {
      if (fimFormatFor(model).name === 'plain') {
        continue;
      }
      const size = statedBillions(model) ?? Number.POSITIVE_INFINITY;
      if (!best || size < best.size) {
        best = { provider: provider.name, model, size };
      }
    }
  }
  return best && { provider: best.provider, model: best.model };
}
