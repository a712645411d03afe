/**
 * The core plugin: builds the agent's shell (the chat, the configuration,
 * the rules, the MCP listing, the registered tools; ../core/agent-shell.ts),
 * keeps it in step with the settings, and provides its parts (IAgentCore,
 * ./host-tokens.ts). What runs a task loads with the first one. Its id is
 * the settings' id (schema/plugin.json), part of the public contract.
 */
import type {
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { PageConfig } from '@jupyterlab/coreutils';
import { INotebookTracker } from '@jupyterlab/notebook';
import { ISettingRegistry } from '@jupyterlab/settingregistry';
import { ITranslator, nullTranslator } from '@jupyterlab/translation';
import { TRANSLATION_DOMAIN } from '../../components/common/trans';
import { agentShell } from '../core/agent-shell';
import {
  autosaveSetting,
  saveAgentEdits
} from '../persistence/save-agent-edits';
import { PLUGIN_ID } from '../config/settings';
import { listenForOutsideAgents } from '../outside/outside-channel';
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
    // What runs a task is a chunk of its own, loaded with the first one.
    const shell = agentShell(app, tracker, trans, async parts =>
      (await import('../runs/runs-part')).runsPart(parts)
    );
    // The UI tests' hooks, a lazy chunk a normal page never loads; their
    // ports are the runs part's, loaded when a test first asks for one.
    if (String(PageConfig.getOption('notebookAgentTestHooks')) === 'true') {
      void import('../testing/test-hooks').then(hooks =>
        hooks.installTestHooks(app, tracker, async panel =>
          (await shell.runs.loaded()).portFor(panel)
        )
      );
    }
    if (settingRegistry) {
      shell.configuration.loadSettings(settingRegistry);
    }
    // A reload mid-run loses nothing the agent did (../persistence/save-agent-edits.ts).
    saveAgentEdits(
      shell.core.runs.session,
      tracker,
      autosaveSetting(settingRegistry),
      trans
    );
    // Outside agents (MCP clients of the server) reach this page's notebooks
    // through a channel opened now; what runs their calls loads with the first.
    listenForOutsideAgents(tracker, async () =>
      (await import('../outside/outside-calls')).outsideRunner(
        await shell.runs.loaded(),
        () => shell.configuration.config.settings.approvalMode
      )
    );
    return shell.core;
  }
};
