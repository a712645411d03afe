/**
 * MCP tools end to end, on a Jupyter server of their own
 * (jupyter_server_mcp_config.py): it runs the test MCP server
 * (tests/mcp_test_server.py, over stdio) and one whose command does not
 * exist. The sidebar lists them (the second one as down, with why), the
 * scripted model calls an MCP tool the user approves and one that runs
 * without asking, and the model's next requests hold their results, which
 * the answer uses. A tool that hangs ends the run's call at the server's
 * timeout with an observation, and the sidebar says so.
 */
import { expect, test } from '@jupyterlab/galata';
import type { Locator } from '@playwright/test';
import { received, script } from './scripted-model';
import { SIDEBAR, ask, finished, openAgent } from './sidebar';

test.use({ kernels: null, sessions: null });

/** The tool results of the `i`-th request the model received. */
function toolResults(
  requests: Awaited<ReturnType<typeof received>>,
  i: number
): Array<string | null> {
  return requests[i].body.messages
    .filter(m => m.role === 'tool')
    .map(m => m.content);
}

/** Open the sidebar's MCP panel (the button says how many tools). */
async function mcpPanel(sidebar: Locator, label: RegExp): Promise<Locator> {
  const toggle = sidebar.getByRole('button', { name: label });
  await expect(toggle).toBeVisible({ timeout: 60000 });
  if ((await toggle.getAttribute('aria-expanded')) !== 'true') {
    await toggle.click();
  }
  return sidebar.getByRole('region', { name: 'MCP servers' });
}

test('the agent calls MCP tools and answers with their results; the sidebar lists the servers', async ({
  page,
  request
}) => {
  await page.notebook.createNew('mcp.ipynb');
  await openAgent(page);
  const sidebar = page.locator(`#${SIDEBAR}`);
  // The listing started the servers: 12 tools of 'weather', 'broken' is down.
  const panel = await mcpPanel(
    sidebar,
    /^MCP tools: 12 \(1 server\(s\) down\)$/
  );
  const weather = panel
    .getByRole('listitem')
    .filter({ has: page.getByText('weather', { exact: true }) });
  await expect(weather).toContainText('connected');
  await expect(
    weather.getByRole('listitem').filter({ hasText: 'plot' })
  ).toContainText('asks first');
  await expect(
    weather.getByRole('listitem').filter({ hasText: 'station_reading' })
  ).toContainText('runs without asking');
  const broken = panel
    .getByRole('listitem')
    .filter({ has: page.getByText('broken', { exact: true }) });
  await expect(broken).toContainText('failed');
  await expect(broken).toContainText(
    'command not found: /nonexistent/notebook-agent-ui-test-mcp-server'
  );

  await script(request, [
    { tool_calls: [{ name: 'weather__notes', arguments: {} }] },
    {
      tool_calls: [
        { name: 'weather__station_reading', arguments: { station: 'kew' } }
      ]
    },
    {
      content:
        'Kew reads 17.25 degrees C (reading R-4821-KEW), calibrated in May.'
    }
  ]);
  await ask(page, 'What does the Kew station read?');
  // notes is not auto-approved: the card names it, in words, before it runs.
  const card = sidebar.getByRole('group', { name: 'Approval needed' });
  await expect(card).toContainText('Use notes from weather', {
    timeout: 30000
  });
  await card.getByRole('button', { name: 'Run' }).click();
  await finished(page);
  await expect(sidebar.getByText('Kew reads 17.25 degrees C')).toBeVisible();

  const requests = await received(request);
  expect(requests).toHaveLength(3);
  // The model was offered the MCP tools, namespaced; not those of 'broken'.
  const offered = (
    requests[0].body as unknown as {
      tools: Array<{ function: { name: string } }>;
    }
  ).tools.map(t => t.function.name);
  expect(offered).toEqual(
    expect.arrayContaining(['weather__station_reading', 'weather__plot'])
  );
  expect(offered.filter(name => name.startsWith('broken__'))).toEqual([]);
  // The approved call's resource, then the auto-approved call's text.
  expect(toolResults(requests, 1).at(-1)).toContain(
    '[resource file:///notes.txt]'
  );
  expect(toolResults(requests, 1).at(-1)).toContain('Calibrated in May.');
  expect(toolResults(requests, 2).at(-1)).toContain('reading id R-4821-KEW');
  // The server's env secret never reaches the browser.
  const listing = await (
    await request.get('/notebook-agent/mcp/servers')
  ).text();
  expect(listing).toContain('weather__station_reading');
  expect(listing).not.toContain('ui-test-mcp-env-secret-0123');
});

test('a tool that hangs ends in a timeout observation and a sidebar notice, not a hung run', async ({
  page,
  request
}) => {
  await page.notebook.createNew('mcp-hang.ipynb');
  await openAgent(page);
  const sidebar = page.locator(`#${SIDEBAR}`);
  await mcpPanel(sidebar, /^MCP tools: 12/);
  await script(request, [
    { tool_calls: [{ name: 'weather__hang', arguments: {} }] },
    { content: 'The weather server did not answer; no reading today.' }
  ]);
  await ask(page, 'Ask the weather server.');
  const card = sidebar.getByRole('group', { name: 'Approval needed' });
  await expect(card).toContainText('Use hang from weather', {
    timeout: 30000
  });
  await card.getByRole('button', { name: 'Run' }).click();
  // The server's timeout is 4 s: the run goes on and ends on its own.
  await finished(page);
  await expect(
    sidebar.getByText('The weather server did not answer')
  ).toBeVisible();
  const requests = await received(request);
  expect(requests).toHaveLength(2);
  const observation = toolResults(requests, 1).at(-1);
  expect(observation).toContain(
    'weather__hang failed: hang did not answer within 4 s'
  );
  expect(observation).toContain('the call was cancelled');
  // The sidebar's notice: the server is up, its last call timed out.
  const panel = await mcpPanel(sidebar, /^MCP tools: 12 \(/);
  await expect(
    panel.getByText('Last call: hang did not answer within 4 s')
  ).toBeVisible();
});
