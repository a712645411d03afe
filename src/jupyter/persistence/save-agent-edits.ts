/**
 * Nothing the agent did is lost when the page goes away mid-run (a reload,
 * a closed tab): the notebook is saved after each agent step that changed
 * it (a cell inserted, edited, deleted or run), as a cell starts to run
 * for the agent (a cell inserted and run in one step is on disk while it
 * runs, not only once it ends), and when the run ends.
 *
 * The user's own unsaved edits are saved with it only when the user lets
 * JupyterLab save for them (autosave on, JupyterLab's default: its next
 * autosave would save them anyway). With autosave off the user saves by
 * hand, so a notebook that already had unsaved changes when the step began
 * is left unsaved (JupyterLab still warns before leaving the page); one
 * that was saved is saved again with the agent's change only.
 */
import type { INotebookTracker } from '@jupyterlab/notebook';
import type { ISettingRegistry } from '@jupyterlab/settingregistry';
import type { TranslationBundle } from '@jupyterlab/translation';
import type { ChatSession } from '../../agent/session/chat-session';
import { followSaves, panelSaver } from './panel-saver';

/** JupyterLab's own document settings (autosave, its interval…). */
const DOCMANAGER_PLUGIN = '@jupyterlab/docmanager-extension:plugin';

/**
 * Whether JupyterLab autosaves documents, as its settings say now
 * (default true, also when the settings cannot be read).
 */
export function autosaveSetting(
  registry: ISettingRegistry | null
): () => boolean {
  let autosave = true;
  void registry
    ?.load(DOCMANAGER_PLUGIN)
    .then(settings => {
      const read = () => {
        autosave = settings.get('autosave').composite !== false;
      };
      read();
      settings.changed.connect(read);
    })
    .catch(() => undefined);
  return () => autosave;
}

/** Save the chat's notebook after the agent's steps that changed it. */
export function saveAgentEdits(
  session: ChatSession,
  tracker: INotebookTracker,
  autosave: () => boolean,
  trans: TranslationBundle
): void {
  // Every notebook's saves are followed from its opening, so that the agent's
  // first save waits for an autosave begun before it (./panel-saver.ts).
  tracker.forEach(followSaves);
  tracker.widgetAdded.connect((_, panel) => followSaves(panel));
  const chatPanel = () =>
    tracker.find(panel => panel.context.path === session.notebookPath) ?? null;
  /** Whether the notebook had unsaved changes when the current step began. */
  let dirtyAtStep = false;
  /** Whether a step (a tool call) is under way. */
  let inStep = false;
  session.subscribeEvents(event => {
    const panel = chatPanel();
    if (!panel || panel.isDisposed) {
      return;
    }
    if (event.type === 'tool-call') {
      dirtyAtStep = panel.context.model.dirty;
      inStep = true;
      return;
    }
    // A cell a step runs is saved as it starts; a workflow's own runs
    // (Generate's check: restart and run all) are saved when the run ends.
    const stepEnds = event.type === 'tool-result' || event.type === 'end';
    if (!stepEnds && !(event.type === 'cell-start' && inStep)) {
      return;
    }
    if (stepEnds) {
      inStep = false;
    }
    if (!panel.context.model.dirty || (dirtyAtStep && !autosave())) {
      return;
    }
    void panelSaver(panel, error =>
      session.notice(
        trans.__(
          'Could not save %1 after the agent’s change: %2. Save it yourself (Ctrl+S) before leaving the page.',
          panel.context.path,
          error
        )
      )
    )();
  });
}
