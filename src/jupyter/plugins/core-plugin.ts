/**
 * The core plugin: builds the agent host (session, tools, configuration,
 * ports, rules), keeps it in step with the settings, and provides its
 * parts (IAgentCore, ./host-tokens.ts). Its id is the settings' id
 * (schema/plugin.json), part of the public contract.
 */
import type {
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { PageConfig } from '@jupyterlab/coreutils';
import { INotebookTracker } from '@jupyterlab/notebook';
import { ISettingRegistry } from '@jupyterlab/settingregistry';
import { ITranslator, nullTranslator } from '@jupyterlab/translation';
import { TRANSLATION_DOMAIN } from '../../components/trans';
import { AgentHost } from '../core/agent-host';
import {
  autosaveSetting,
  saveAgentEdits
} from '../persistence/save-agent-edits';
import { PLUGIN_ID } from '../config/settings';
import { IAgentCore } from './host-tokens';

/** Notebook Agent's core plugin. */
export const corePlugin: JupyterFrontEndPlugin<IAgentCore> = {
  id: PLUGIN_ID,
  description: 'An agent that writes and runs cells in the active notebook.',
  autoStart: true,
  requires: [INotebookTracker],
  optional: [ISettingRegistry, ITranslator],
  provides: IAgentCore,
  activate: (
    app: JupyterFrontEnd,
    tracker: INotebookTracker,
    settingRegistry: ISettingRegistry | null,
    translator: ITranslator | null
  ) => {
    const trans = (translator ?? nullTranslator).load(TRANSLATION_DOMAIN);
    const host = new AgentHost(app, tracker, trans);
    // The UI tests' hooks, a lazy chunk a normal page never loads.
    if (String(PageConfig.getOption('notebookAgentTestHooks')) === 'true') {
      void import('../testing/test-hooks').then(hooks =>
        hooks.installTestHooks(app, tracker, panel => host.portFor(panel))
      );
    }
    if (settingRegistry) {
      host.loadSettings(settingRegistry);
    }
    // A reload mid-run loses nothing the agent did (../persistence/save-agent-edits.ts).
    saveAgentEdits(
      host.session,
      tracker,
      autosaveSetting(settingRegistry),
      trans
    );
    return host.parts();
  }
};
