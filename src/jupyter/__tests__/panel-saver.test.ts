/**
 * The one queue of saves per notebook panel (persistence/panel-saver.ts):
 * the agent's step saves and Generate's periodic ones never overlap each
 * other or a save JupyterLab has under way (two at once made JupyterLab ask
 * "File Changed … Overwrite / Revert?" at the end of a Generate). A stand-in
 * for the panel's document context: the thing under test is the queue, and
 * the context's save is where overlapping would show.
 */
import { Signal } from '@lumino/signaling';
import type { NotebookPanel } from '@jupyterlab/notebook';
import { followSaves, panelSaver } from '../persistence/panel-saver';

type SaveState = 'started' | 'completed' | 'failed';

/** A panel whose saves take `ms` and count how many run at once. */
function fakePanel(ms = 20) {
  const saveState = new Signal<unknown, SaveState>({});
  const contentChanged = new Signal<unknown, void>({});
  const model = { dirty: true, contentChanged };
  let running = 0;
  const seen = { saves: 0, mostAtOnce: 0 };
  const save = async () => {
    await Promise.resolve();
    saveState.emit('started');
    running += 1;
    seen.saves += 1;
    seen.mostAtOnce = Math.max(seen.mostAtOnce, running);
    await new Promise(resolve => setTimeout(resolve, ms));
    running -= 1;
    model.dirty = false;
    saveState.emit('completed');
  };
  const panel = {
    isDisposed: false,
    context: { save, saveState, model, path: 'a.ipynb' }
  } as unknown as NotebookPanel;
  return { panel, model, saveState, seen, save };
}

const quiet = () => undefined;

it('never runs two saves at once, and a change made while one runs is saved after it', async () => {
  const { panel, model, seen } = fakePanel();
  const step = panelSaver(panel, quiet);
  const generate = panelSaver(panel, quiet);
  expect(generate).toBe(step);
  const first = step();
  const shared = generate(); // waits to start with the first: the same save
  await new Promise(resolve => setTimeout(resolve, 5));
  model.dirty = true; // a change while the save runs
  model.contentChanged.emit();
  const after = step();
  await Promise.all([first, shared, after]);
  expect(seen.mostAtOnce).toBe(1);
  expect(seen.saves).toBe(2);
  expect(model.dirty).toBe(false);
});

it('waits for a save of JupyterLab’s own (autosave, Ctrl+S) before starting', async () => {
  const { panel, seen, save } = fakePanel();
  const saver = panelSaver(panel, quiet); // the queue of a panel in use
  const jupyterlab = save(); // not through the queue
  await new Promise(resolve => setTimeout(resolve, 1));
  const ours = saver();
  await Promise.all([jupyterlab, ours]);
  expect(seen.mostAtOnce).toBe(1);
});

it('waits for a save of JupyterLab’s begun before the first save of ours (followed from the panel’s opening)', async () => {
  const { panel, seen, save } = fakePanel();
  followSaves(panel); // as the notebook opens (save-agent-edits.ts)
  const autosave = save(); // JupyterLab's, before the agent ever saved
  await new Promise(resolve => setTimeout(resolve, 1));
  const ours = panelSaver(panel, quiet)(); // the queue's first use
  await Promise.all([autosave, ours]);
  expect(seen.mostAtOnce).toBe(1);
});

it('tells the latest caller once when saves fail, and never throws', async () => {
  const { panel } = fakePanel();
  (panel.context as unknown as { save: () => Promise<void> }).save =
    async () => {
      throw new Error('disk full');
    };
  const heard: string[] = [];
  await panelSaver(panel, quiet)();
  await panelSaver(panel, error => heard.push(error))();
  expect(heard).toEqual([]); // said once already, to the first caller
  const other = fakePanel().panel;
  (other.context as unknown as { save: () => Promise<void> }).save =
    async () => {
      throw new Error('disk full');
    };
  await panelSaver(other, error => heard.push(error))();
  expect(heard).toEqual(['disk full']);
});
