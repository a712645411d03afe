/**
 * Open and close notebooks in a JupyterLab page as a user does, through
 * JupyterLab's own commands only (so it runs with or without the
 * extension; the server must expose the app: --LabApp.expose_app_in_browser):
 * each notebook is a new file with one code cell, opened (its kernel
 * starts), the cell run (notebook:run-cell), its kernel shut down, saved,
 * its tab closed. Each panel is also kept in a WeakRef, to count those
 * still in memory afterwards.
 */
import type { Page } from '../../ui-tests/node_modules/playwright-core';

// A string, not a function: tsx would add helpers the page does not have.
const CYCLE = `async count => {
  const app = window.jupyterapp;
  const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));
  // Every await is bounded, so a step that never ends fails with its name
  // (a loaded machine once left one hanging until the test's timeout).
  const step = (what, promise) => Promise.race([
    promise,
    sleep(60000).then(() => { throw new Error(what + ' did not end within 60 s'); })
  ]);
  for (let i = 0; i < count; i++) {
    const path = 'cycle-' + Date.now() + '-' + i + '.ipynb';
    await step(path + ': saving the new file', app.serviceManager.contents.save(path, {
      type: 'notebook',
      format: 'json',
      content: {
        nbformat: 4,
        nbformat_minor: 5,
        metadata: { kernelspec: { name: 'python3', display_name: 'Python 3' } },
        cells: [{ cell_type: 'code', source: 'print("hello")', metadata: {}, outputs: [], execution_count: null }]
      }
    }));
    const panel = await step(path + ': docmanager:open', app.commands.execute('docmanager:open', { path, factory: 'Notebook' }));
    (window.cyclePanels ||= []).push(new WeakRef(panel));
    await step(path + ': context.ready', panel.context.ready);
    await step(path + ': sessionContext.ready', panel.sessionContext.ready);
    // Not 'idle': a new kernel's status often stays 'starting' until it runs something.
    for (let t = 0; panel.sessionContext.session?.kernel?.connectionStatus !== 'connected'; t++) {
      if (t > 1200) throw new Error(path + ': no kernel');
      await sleep(50);
    }
    app.shell.activateById(panel.id);
    panel.content.activeCellIndex = 0;
    await step(path + ': notebook:run-cell', app.commands.execute('notebook:run-cell'));
    const cell = panel.content.widgets[0].model;
    for (let t = 0; !cell.outputs.length || cell.executionCount === null; t++) {
      if (t > 1200) throw new Error(path + ': no output');
      await sleep(20);
    }
    await step(path + ': shutting the kernel down', panel.sessionContext.shutdown());
    await step(path + ': saving', panel.context.save());
    panel.close();
    for (let t = 0; !panel.isDisposed; t++) {
      if (t > 500) {
        const dialog = document.querySelector('.jp-Dialog');
        throw new Error(path + ': did not close' + (dialog ? ' (dialog: ' + dialog.textContent + ')' : '') + ', dirty: ' + panel.context.model.dirty);
      }
      await sleep(20);
    }
  }
}`;

/**
 * How many of the panels the cycles opened (all closed) are still in
 * memory; meaningful after a garbage collection.
 */
export async function retainedPanels(page: Page): Promise<number> {
  return page.evaluate(
    '(window.cyclePanels || []).filter(ref => ref.deref() !== undefined).length'
  );
}

/** Open and close `count` notebooks, one after the other. */
export async function openAndCloseNotebooks(
  page: Page,
  count: number
): Promise<void> {
  await page.evaluate(`(${CYCLE})(${count})`);
}
