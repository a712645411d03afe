/**
 * The user's settings (schema/plugin.json), read into a plain object.
 */
import type { ISettingRegistry } from '@jupyterlab/settingregistry';
import type { ApprovalMode } from '../agent/loop/approval';
import type { IRunSettings } from '../agent/tools/run-state';

/** Settings id, part of the public contract. */
export const PLUGIN_ID = 'jupyterlab-notebook-agent:plugin';

/** Where model requests go. */
export type EndpointMode = 'proxy' | 'direct';

/** Notebook Agent's settings. */
export interface IAgentSettings {
  endpointMode: EndpointMode;
  provider: string;
  baseUrl: string;
  model: string;
  apiKey: string;
  maxSteps: number;
  approvalMode: ApprovalMode;
  softTimeoutSeconds: number;
  hardTimeoutSeconds: number;
  allowDeleteAnyCell: boolean;
  contextWindowTokens: number;
  toolCalling: 'auto' | 'native' | 'text';
  vision: boolean;
  maxImageSide: number;
}

/** The defaults, as in the schema. */
export const DEFAULT_SETTINGS: IAgentSettings = {
  endpointMode: 'proxy',
  provider: '',
  baseUrl: '',
  model: '',
  apiKey: '',
  maxSteps: 30,
  approvalMode: 'ask-before-running',
  softTimeoutSeconds: 30,
  hardTimeoutSeconds: 600,
  allowDeleteAnyCell: false,
  contextWindowTokens: 0,
  toolCalling: 'auto',
  vision: false,
  maxImageSide: 768
};

const MODES: ReadonlyArray<ApprovalMode> = [
  'ask-before-running',
  'ask-before-edits',
  'run-everything'
];

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
    provider: get<string>('provider').trim(),
    baseUrl: get<string>('baseUrl').trim(),
    model: get<string>('model').trim(),
    apiKey: get<string>('apiKey'),
    maxSteps: get<number>('maxSteps'),
    approvalMode: MODES.includes(get<ApprovalMode>('approvalMode'))
      ? get<ApprovalMode>('approvalMode')
      : DEFAULT_SETTINGS.approvalMode,
    softTimeoutSeconds: get<number>('softTimeoutSeconds'),
    hardTimeoutSeconds: get<number>('hardTimeoutSeconds'),
    allowDeleteAnyCell: get<boolean>('allowDeleteAnyCell'),
    contextWindowTokens: get<number>('contextWindowTokens'),
    toolCalling:
      (['native', 'text'] as const).find(
        p => p === get<string>('toolCalling')
      ) ?? 'auto',
    vision: get<boolean>('vision'),
    maxImageSide: get<number>('maxImageSide')
  };
}

/** The run limits the tools use. */
export function runSettings(settings: IAgentSettings): IRunSettings {
  return {
    softTimeoutMs: settings.softTimeoutSeconds * 1000,
    hardTimeoutMs: settings.hardTimeoutSeconds * 1000,
    allowDeleteAnyCell: settings.allowDeleteAnyCell
  };
}
