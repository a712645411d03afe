/**
 * Helpers to use the Notebook Agent sidebar the way a user does.
 */
import { expect } from '@jupyterlab/galata';
import type { IJupyterLabPageFixture } from '@jupyterlab/galata';

/** The sidebar widget id (public contract). */
export const SIDEBAR = 'notebook-agent-sidebar';

/** Open the sidebar; resolves with the prompt box. */
export async function openAgent(page: IJupyterLabPageFixture) {
  // The public command, idempotent (Galata's openTab toggles a tab it
  // believes closed, which closes an open sidebar now and then).
  await page.evaluate(() =>
    window.jupyterapp.commands.execute('notebook-agent:open')
  );
  const prompt = page.getByRole('textbox', { name: 'Ask Notebook Agent' });
  await expect(prompt).toBeVisible();
  return prompt;
}

/** Type a prompt and press Enter; resolves with the sidebar. */
export async function ask(page: IJupyterLabPageFixture, text: string) {
  const prompt = await openAgent(page);
  await prompt.fill(text);
  await prompt.press('Enter');
  return page.locator(`#${SIDEBAR}`);
}

/**
 * Wait until the run is over (the Send button is back); `timeout` for
 * runs known to be slow (the in-browser model on SwiftShader's WebGPU).
 */
export async function finished(page: IJupyterLabPageFixture, timeout = 60000) {
  await expect(
    page.locator(`#${SIDEBAR}`).getByRole('button', { name: 'Send' })
  ).toBeVisible({ timeout });
}

/**
 * Reload the page as a user does (a plain browser reload: Galata's own
 * waits for a Launcher tab) and wait for the restored layout to show a
 * notebook. With several notebooks restored, the first panel in the page
 * may be a hidden tab, and a plain wait for `.jp-NotebookPanel` waits on
 * that one (CI: 120 s on a hidden panel).
 */
export async function reloadToNotebook(page: IJupyterLabPageFixture) {
  await page.evaluate(() => window.location.reload());
  await page.waitForSelector('#jupyterlab-splash', { state: 'detached' });
  await page.waitForSelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
}

/** Change the extension's settings live, as the Settings Editor does. */
export async function setAgentSettings(
  page: IJupyterLabPageFixture,
  values: Record<string, unknown>
) {
  await page.evaluate(async v => {
    const registry = await window.galata.getPlugin(
      '@jupyterlab/apputils-extension:settings'
    );
    await registry!.upload(
      'jupyterlab-notebook-agent:plugin',
      JSON.stringify(v)
    );
  }, values);
}

/**
 * The source of cell `index` of the current notebook, read from its model.
 * (Galata's getCellTextInput clicks into the editor and copies through the
 * clipboard: the cell toolbar, over a one-line cell beside the open sidebar,
 * caught that click now and then and the test timed out.)
 */
export function cellSource(
  page: IJupyterLabPageFixture,
  index: number
): Promise<string> {
  return page.evaluate(i => {
    const panel = window.jupyterapp.shell.currentWidget as unknown as {
      content: {
        model: {
          cells: { get(i: number): { sharedModel: { getSource(): string } } };
        };
      };
    };
    return panel.content.model.cells.get(i).sharedModel.getSource();
  }, index);
}
