/**
 * A real agent CLI works in a live notebook (#36): OpenCode (npm
 * `opencode-ai`), with a local model on loopback, connected to the Jupyter
 * server's MCP endpoint. The user approves its cell in the sidebar, the cell
 * runs in the notebook's kernel, and one Undo reverts the run.
 *
 * Measured on 2 CPU cores (OpenCode 1.18.33, llama-server): OpenCode runs
 * offline (its models.dev fetch fails and it goes on) and connects to the
 * endpoint. Qwen2.5-Coder 0.5B and 1.5B write a call as a ```json block,
 * which llama-server reads as a tool call only with
 * scripts/chat-templates/qwen2.5-coder-json-calls.jinja (with the model's
 * own template no tool is called). With it the 1.5B inserts and runs the
 * cell in 3.4 min (scripts/opencode-check.sh, -t 2, 2 cores).
 *
 * Not part of the test command (minutes of model time on a CPU):
 * scripts/opencode-check.sh installs the pinned OpenCode, starts the model
 * with that template and runs this spec through
 * playwright.outside.config.js, which runs it when both are given (and it
 * says what is missing otherwise):
 *   NOTEBOOK_AGENT_OPENCODE   the opencode command
 *   NOTEBOOK_AGENT_OPENCODE_MODEL  an OpenAI-compatible base URL (llama-server's
 *                             /v1 with Qwen2.5-Coder and that template)
 */
import { spawn } from 'child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import * as path from 'path';
import { expect, test } from './shared-page';
import { openAgent, SIDEBAR } from './sidebar';

const OPENCODE = process.env.NOTEBOOK_AGENT_OPENCODE ?? '';
const MODEL = process.env.NOTEBOOK_AGENT_OPENCODE_MODEL ?? '';

test.use({ kernels: null, sessions: null });
if (!OPENCODE || !MODEL) {
  throw new Error(
    'outside-opencode.spec.ts needs NOTEBOOK_AGENT_OPENCODE and NOTEBOOK_AGENT_OPENCODE_MODEL'
  );
}
test.setTimeout(40 * 60_000);

/** A project folder whose opencode.json names the model and the notebook's MCP server, and nothing else. */
function project(mcpUrl: string): { dir: string; home: string } {
  const root = mkdtempSync(path.join(tmpdir(), 'outside-opencode-'));
  const dir = path.join(root, 'project');
  const home = path.join(root, 'home');
  mkdirSync(dir);
  mkdirSync(home);
  const config = {
    $schema: 'https://opencode.ai/config.json',
    autoupdate: false,
    share: 'disabled',
    provider: {
      local: {
        npm: '@ai-sdk/openai-compatible',
        name: 'Local model',
        options: { baseURL: MODEL },
        models: { qwen: { name: 'Qwen2.5-Coder' } }
      }
    },
    model: 'local/qwen',
    mcp: { notebook: { type: 'remote', url: mcpUrl } },
    // A small model reads a short prompt and only the notebook's tools.
    agent: {
      notebook: {
        mode: 'primary',
        model: 'local/qwen',
        prompt:
          'You work in a Jupyter notebook through the notebook_* tools. Call one tool at a time. ' +
          'To add code, call notebook_insert_cell with the notebook path, the source, and run: true.',
        tools: { '*': false, 'notebook_*': true },
        // Greedy, the 1.5B read the cell it had run again and again; after
        // the limit OpenCode asks for the answer in words.
        steps: 4
      }
    }
  };
  writeFileSync(
    path.join(dir, 'opencode.json'),
    JSON.stringify(config, null, 2)
  );
  return { dir, home };
}

test('OpenCode with a local model inserts and runs a cell, approved in the sidebar; one Undo reverts it', async ({
  page
}) => {
  await page.notebook.createNew('opencode.ipynb');
  await openAgent(page);
  const notebook = await page.evaluate(
    () =>
      (
        window.jupyterapp.shell.currentWidget as unknown as {
          context: { path: string };
        }
      ).context.path
  );
  const { dir, home } = project(
    new URL('/notebook-agent/mcp', page.url()).toString()
  );
  const child = spawn(
    OPENCODE,
    [
      'run',
      '--agent',
      'notebook',
      `In the notebook ${notebook}, insert a code cell with the source print(6 * 7) and run it.`
    ],
    {
      cwd: dir,
      // OpenCode takes its project from $PWD when set, not from its working
      // directory: the inherited one is ui-tests/, which has no such agent.
      env: { ...process.env, HOME: home, PWD: dir },
      stdio: ['ignore', 'pipe', 'pipe']
    }
  );
  let log = '';
  child.stdout.on('data', (data: Buffer) => (log += data.toString()));
  child.stderr.on('data', (data: Buffer) => (log += data.toString()));
  const exited = new Promise<number | null>(resolve =>
    child.on('exit', resolve)
  );
  let done = false;
  void exited.then(() => (done = true));
  const sidebar = page.locator(`#${SIDEBAR}`);
  const card = sidebar.getByRole('group', { name: 'Approval needed' });
  let approved = 0;
  while (!done) {
    if (await card.isVisible()) {
      await card.getByRole('button', { name: 'Run' }).click();
      approved++;
    }
    await page.waitForTimeout(1000);
  }
  test.info().annotations.push({
    type: 'opencode output',
    description: log.slice(-4000)
  });
  expect(await exited, log.slice(-2000)).toBe(0);
  expect(approved, log.slice(-2000)).toBeGreaterThan(0);
  await expect(sidebar).toContainText(`is working in ${notebook}`);
  const cells = page.locator('.jp-Notebook .jp-Cell');
  await expect(cells.last().locator('.jp-OutputArea')).toContainText('42');
  await expect(sidebar).toContainText('finished in', { timeout: 150_000 });
  await page.locator('.jp-Notebook .jp-Cell').first().click();
  await page.keyboard.press('Escape');
  await page.keyboard.press('z');
  await expect(cells).toHaveCount(1);
});
