/**
 * One queue of saves per notebook panel, for everything the extension saves:
 * the agent's steps (save-agent-edits.ts) and Generate's periodic saves
 * (generate-run.ts). No save of ours starts while another is under way,
 * ours or JupyterLab's (its autosave, Ctrl+S).
 *
 * Two at once made JupyterLab ask "File Changed … Overwrite / Revert?" at the
 * end of a Generate (seen in the walk with the 1.5B; the dialog then blocked
 * the page): before it writes, a save compares the file's hash on disk with
 * the one it last saved, and the second save read the disk after the first
 * had written it and before the first had noted its new hash.
 */
import type { NotebookPanel } from '@jupyterlab/notebook';

/** Save now, or after the save under way; resolves when the change is saved. */
export type PanelSave = () => Promise<void>;

/** The panel's saves. */
interface IPanelSaves {
  save: PanelSave;
  /** Who is told when a save fails (the latest caller's words). */
  notify: (error: string) => void;
}

const queues = new WeakMap<NotebookPanel, IPanelSaves>();

/** The longest a save of ours waits for one that is not ours to end. */
const OTHERS_WAIT_MS = 10_000;

/**
 * The one saver of `panel`: a call while a save waits to start shares it (it
 * takes that change too); a call while one runs queues one more after it.
 * Never throws; `notify` hears of a failed save (see `notifyingSaver`).
 */
export function panelSaver(
  panel: NotebookPanel,
  notify: (error: string) => void
): PanelSave {
  const saves = queueOf(panel);
  saves.notify = notify;
  return saves.save;
}

/**
 * Follow `panel`'s saves from now on (call it as the panel opens). The queue
 * learns of a save of JupyterLab's only from its start signal: made at our
 * first save, it would not know of an autosave begun before, and ours would
 * run beside it (the "File Changed" dialog above).
 */
export function followSaves(panel: NotebookPanel): void {
  queueOf(panel);
}

function queueOf(panel: NotebookPanel): IPanelSaves {
  let saves = queues.get(panel);
  if (!saves) {
    const made: IPanelSaves = {
      notify: () => undefined,
      save: queuedSaver(
        panel,
        notifyingSaver(panel, error => made.notify(error))
      )
    };
    saves = made;
    queues.set(panel, saves);
  }
  return saves;
}

function queuedSaver(
  panel: NotebookPanel,
  save: () => Promise<void>
): PanelSave {
  /** Whether a save that is not ours is under way (saveState says so). */
  let othersSaving = false;
  let ours = false;
  panel.context.saveState.connect((_, state) => {
    if (!ours) {
      othersSaving = state === 'started';
    }
  });
  // A save cancelled at JupyterLab's own "File Changed" dialog ends without
  // saying so (no 'completed' or 'failed'): wait for another's save at most
  // this long.
  const othersDone = () =>
    new Promise<void>(resolve => {
      const done = () => {
        clearTimeout(timer);
        panel.context.saveState.disconnect(check);
        resolve();
      };
      const check = () => {
        if (!othersSaving || panel.isDisposed) {
          done();
        }
      };
      const timer = setTimeout(() => {
        othersSaving = false;
        done();
      }, OTHERS_WAIT_MS);
      panel.context.saveState.connect(check);
      check();
    });
  let tail: Promise<void> = Promise.resolve();
  let waiting = false;
  return () => {
    if (waiting) {
      return tail;
    }
    waiting = true;
    tail = tail.then(async () => {
      await othersDone();
      waiting = false;
      ours = true;
      try {
        await save();
      } finally {
        ours = false;
      }
    });
    return tail;
  };
}

/**
 * Saves `panel` when it has unsaved changes, and tells the user when that
 * fails: `notify` gets the error's message once, again only after a save
 * succeeded. Never throws (a failed save must not fail the agent's work).
 *
 * What changes while a save is under way (a cell running: its outputs, its
 * count) is not in it, yet JupyterLab marks the notebook saved when the
 * save ends, and the next save would skip it as unchanged: such a notebook
 * stays marked unsaved.
 */
function notifyingSaver(
  panel: NotebookPanel,
  notify: (error: string) => void
): () => Promise<void> {
  let failing = false;
  return async () => {
    const model = panel.context.model;
    if (panel.isDisposed || !model.dirty) {
      return;
    }
    let changed = false;
    const onChange = () => {
      changed = true;
    };
    model.contentChanged.connect(onChange);
    try {
      await panel.context.save();
      failing = false;
    } catch (error) {
      if (!failing) {
        notify((error as Error)?.message ?? String(error));
      }
      failing = true;
    } finally {
      model.contentChanged.disconnect(onChange);
      if (changed && !panel.isDisposed) {
        model.dirty = true;
      }
    }
  };
}
