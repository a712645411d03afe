/**
 * The user's settings (schema/plugin.json), read into a plain object.
 */
import type { ISettingRegistry } from '@jupyterlab/settingregistry';

/** Settings id, part of the public contract. */
export const PLUGIN_ID = 'jupyterlab-notebook-agent:plugin';

/** Where model requests go. */
export type EndpointMode = 'proxy' | 'direct';

/** Notebook Agent's settings. */
export interface IAgentSettings {
  endpointMode: EndpointMode;
  baseUrl: string;
  model: string;
  apiKey: string;
  maxSteps: number;
}

/** The defaults, as in the schema. */
export const DEFAULT_SETTINGS: IAgentSettings = {
  endpointMode: 'proxy',
  baseUrl: '',
  model: '',
  apiKey: '',
  maxSteps: 30
};

/** Read the composite settings, falling back to defaults field by field. */
export function readSettings(
  settings: ISettingRegistry.ISettings | null
): IAgentSettings {
  if (!settings) {
    return { ...DEFAULT_SETTINGS };
  }
  const get = <T>(key: keyof IAgentSettings): T =>
    (settings.get(key).composite ?? DEFAULT_SETTINGS[key]) as T;
  return {
    endpointMode: get<string>('endpointMode') === 'direct' ? 'direct' : 'proxy',
    baseUrl: get<string>('baseUrl').trim(),
    model: get<string>('model').trim(),
    apiKey: get<string>('apiKey'),
    maxSteps: get<number>('maxSteps')
  };
}
