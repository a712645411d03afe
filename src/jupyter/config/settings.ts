/**
 * The user's settings (schema/plugin.json), read into a plain object.
 */
import type { ISettingRegistry } from '@jupyterlab/settingregistry';
import type { ApprovalMode } from '../../agent/loop/approval';
import type { CapabilityOverrides } from '../../agent/model/capabilities';
import type { IRunSettings } from '../../agent/tools/run-state';
import type {
  EndpointMode,
  ServerStatus
} from '../../components/config/sidebar-config';

/** Settings id, part of the public contract. */
export const PLUGIN_ID = 'jupyterlab-notebook-agent:plugin';

// Where model requests go; `local`: a model in this browser tab.
export type { EndpointMode };

const MODES_SET: ReadonlyArray<EndpointMode> = ['proxy', 'direct', 'local'];

/** The device a local model should use (device-ladder.ts). */
export type LocalDeviceSetting = 'auto' | 'webgpu' | 'wasm';

/** Notebook Agent's settings. */
export interface IAgentSettings {
  endpointMode: EndpointMode;
  /**
   * The setting is `auto` (the default): `endpointMode` follows the server,
   * proxy when it has an endpoint, else local (resolveEndpointMode).
   */
  endpointModeAuto: boolean;
  provider: string;
  baseUrl: string;
  model: string;
  apiKey: string;
  maxSteps: number;
  approvalMode: ApprovalMode;
  softTimeoutSeconds: number;
  hardTimeoutSeconds: number;
  /** A model stream that sends nothing this long is stopped; 0 = never. */
  modelIdleTimeoutSeconds: number;
  allowDeleteAnyCell: boolean;
  /** Add the project's AGENTS.md files to the agent's instructions. */
  projectRules: boolean;
  contextWindowTokens: number;
  toolCalling: 'auto' | 'native' | 'text';
  vision: boolean;
  maxImageSide: number;
  /** Local mode: the model id ('' = the default of the catalogue). */
  localModel: string;
  localModelDevice: LocalDeviceSetting;
  /** Host serving `{model}/resolve/{revision}/{file}` ('' = the hub). */
  localModelHost: string;
  /** The site's own models folder URL ('' = none). */
  localModelPath: string;
  localModelAllowRemote: boolean;
  /** Edits of the local model catalogue (catalogue.ts). */
  localModels: unknown[];
  /** Direct mode: an OpenAI-compatible endpoint, or Azure OpenAI. */
  directApi: 'openai' | 'azure';
  azureDeployment: string;
  azureApiVersion: string;
  /** Per-model corrections of the capability table. */
  modelCapabilities: CapabilityOverrides;
}

/** The defaults, as in the schema. */
export const DEFAULT_SETTINGS: IAgentSettings = {
  endpointMode: 'proxy',
  endpointModeAuto: true,
  provider: '',
  baseUrl: '',
  model: '',
  apiKey: '',
  maxSteps: 30,
  approvalMode: 'ask-before-running',
  softTimeoutSeconds: 30,
  hardTimeoutSeconds: 600,
  modelIdleTimeoutSeconds: 300,
  allowDeleteAnyCell: false,
  projectRules: true,
  contextWindowTokens: 0,
  toolCalling: 'auto',
  vision: false,
  maxImageSide: 768,
  localModel: '',
  localModelDevice: 'auto',
  localModelHost: '',
  localModelPath: '',
  localModelAllowRemote: true,
  localModels: [],
  directApi: 'openai',
  azureDeployment: '',
  azureApiVersion: '2024-10-21',
  modelCapabilities: {}
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
    endpointMode:
      MODES_SET.find(m => m === get<string>('endpointMode')) ?? 'proxy',
    endpointModeAuto: !MODES_SET.some(m => m === get<string>('endpointMode')),
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
    modelIdleTimeoutSeconds: Math.max(
      0,
      get<number>('modelIdleTimeoutSeconds')
    ),
    allowDeleteAnyCell: get<boolean>('allowDeleteAnyCell'),
    projectRules: get<boolean>('projectRules') !== false,
    contextWindowTokens: get<number>('contextWindowTokens'),
    toolCalling:
      (['native', 'text'] as const).find(
        p => p === get<string>('toolCalling')
      ) ?? 'auto',
    vision: get<boolean>('vision'),
    maxImageSide: get<number>('maxImageSide'),
    localModel: get<string>('localModel').trim(),
    localModelDevice:
      (['webgpu', 'wasm'] as const).find(
        d => d === get<string>('localModelDevice')
      ) ?? 'auto',
    localModelHost: get<string>('localModelHost').trim(),
    localModelPath: get<string>('localModelPath').trim(),
    localModelAllowRemote: get<boolean>('localModelAllowRemote'),
    localModels: Array.isArray(get<unknown>('localModels'))
      ? get<unknown[]>('localModels')
      : [],
    directApi: get<string>('directApi') === 'azure' ? 'azure' : 'openai',
    azureDeployment: get<string>('azureDeployment').trim(),
    azureApiVersion:
      get<string>('azureApiVersion').trim() || DEFAULT_SETTINGS.azureApiVersion,
    modelCapabilities: isRecord(get<unknown>('modelCapabilities'))
      ? get<CapabilityOverrides>('modelCapabilities')
      : {}
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The run limits the tools use. */
export function runSettings(settings: IAgentSettings): IRunSettings {
  return {
    softTimeoutMs: settings.softTimeoutSeconds * 1000,
    hardTimeoutMs: settings.hardTimeoutSeconds * 1000,
    allowDeleteAnyCell: settings.allowDeleteAnyCell
  };
}

/**
 * The settings with `auto` endpoint mode resolved against the server: its
 * proxy when it has a model endpoint (or while that is not known yet), else
 * the local model in this browser, so the agent works out of the box.
 */
export function resolveEndpointMode(
  settings: IAgentSettings,
  status: ServerStatus
): IAgentSettings {
  if (!settings.endpointModeAuto) {
    return settings;
  }
  const noEndpoint =
    status.kind === 'not-configured' || status.kind === 'no-extension';
  return { ...settings, endpointMode: noEndpoint ? 'local' : 'proxy' };
}
