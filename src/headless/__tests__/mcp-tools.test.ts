/**
 * MCP tools in the agent, through a real Jupyter server running the test
 * MCP server (tests/mcp_test_server.py, written with the Python SDK) over
 * stdio: the listing becomes tools with their schemas, a run asks before a
 * tool that is not auto-approved and sends the results (text and image) to
 * the model, ajv refuses bad arguments before any request, a tool that
 * hangs ends at the server's timeout (the run goes on, the listing keeps a
 * notice), and Stop cancels a call on the MCP server.
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { AgentSession } from '../../agent/session';
import { FakeNotebook } from '../../agent/testing/fake-notebook';
import { ScriptedModel } from '../../agent/testing/scripted-model';
import { agentTools } from '../../agent/tools/all-tools';
import { mcpTools, McpToolSource } from '../../agent/tools/mcp-tools';
import { ToolRegistry } from '../../agent/tools/registry';
import { ServerMcpClient } from '../../server-api/mcp-client';
import { JupyterServerProcess } from '../servers/jupyter-server';

jest.setTimeout(60000);

const ROOT = resolve(__dirname, '../../..');
const PYTHON = process.env.PYTHON ?? 'python';
let server: JupyterServerProcess;
let client: ServerMcpClient;
let marker: string;

beforeAll(async () => {
  jest.spyOn(console, 'debug').mockImplementation(() => undefined);
  const dir = mkdtempSync(join(tmpdir(), 'mcp-jest-'));
  marker = join(dir, 'cancelled');
  const config = join(dir, 'jupyter_server_config.json');
  writeFileSync(
    config,
    JSON.stringify({
      NotebookAgent: {
        mcp_servers: {
          demo: {
            command: PYTHON,
            args: [join(ROOT, 'tests', 'mcp_test_server.py')],
            env: { MCP_TEST_MARKER: marker },
            auto_approve: ['station_reading', 'hang']
          },
          // The same server with a short call timeout: a hang ends in 2 s.
          slow: {
            command: PYTHON,
            args: [join(ROOT, 'tests', 'mcp_test_server.py')],
            timeout: 2,
            auto_approve: true
          }
        }
      }
    })
  );
  server = await JupyterServerProcess.start({
    extraArgs: [`--config=${config}`]
  });
  client = new ServerMcpClient(server.serverSettings);
}, 90000);

afterAll(async () => {
  await server?.dispose();
});

describe('MCP tools through the Jupyter server', () => {
  it('lists the servers tools as agent tools with their schemas and approvals', async () => {
    const listing = await client.listServers();
    const demo = listing.servers.find(s => s.name === 'demo')!;
    expect(demo.status).toBe('connected');
    const set = mcpTools(listing, client);
    const names = set.tools.map(t => t.name);
    expect(names).toEqual(
      expect.arrayContaining(['demo__station_reading', 'demo__plot'])
    );
    const reading = set.tools.find(t => t.name === 'demo__station_reading')!;
    expect(reading.parameters).toMatchObject({
      type: 'object',
      required: ['station']
    });
    // Whether a call asks is the tool's own: the server's config says.
    expect(set.tools.find(t => t.name === 'demo__plot')!.asksAlways).toBe(true);
    expect(reading.asksAlways).toBe(false);
  });

  it('asks before a tool that is not auto-approved and sends the results to the model', async () => {
    const source = new McpToolSource(client);
    await source.refresh();
    const session = new AgentSession({
      tools: new ToolRegistry(agentTools()),
      // Even "run everything" asks before an MCP tool the config does not auto-approve.
      approvalMode: () => 'run-everything',
      extraTools: () => source.toolSet(),
      vision: () => ({ enabled: true, maxSide: 512 })
    });
    const asked: string[] = [];
    session.subscribe(() => {
      const pending = session.getSnapshot().pendingApproval;
      if (pending) {
        asked.push(`${pending.call.name} ${pending.details ?? ''}`);
        session.resolveApproval({ approved: true });
      }
    });
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: 'demo__station_reading', arguments: { station: 'kew' } },
          { name: 'demo__plot', arguments: {} }
        ]
      },
      { text: 'Kew reads 17.25 degrees.' }
    ]);
    await session.send('What does Kew read?', {
      model: () => model,
      notebook: new FakeNotebook()
    });
    expect(asked).toEqual(['demo__plot ']);
    expect(model.requests[0].tools.map(t => t.name)).toContain('demo__plot');
    const next = model.requests[1].messages;
    const results = next.filter(m => m.role === 'tool').map(m => m.content);
    expect(results[0]).toContain('reading id R-4821-KEW');
    expect(results[1]).toContain('A 4x3 chart of the readings.');
    expect(results[1]).toMatch(/\[image\/png 4×3 px/);
    const images = next.flatMap(m => (m.role === 'user' && m.images) || []);
    expect(images).toEqual([
      expect.objectContaining({ mime: 'image/png', width: 4, height: 3 })
    ]);
    expect(session.getSnapshot().items.at(-1)).toMatchObject({
      kind: 'assistant',
      text: 'Kew reads 17.25 degrees.'
    });
  });

  it('validates arguments with the tool schema before calling the server', async () => {
    const registry = new ToolRegistry([
      ...mcpTools(await client.listServers(), client).tools
    ]);
    const result = await registry.call(
      { id: '1', name: 'demo__station_reading', arguments: '{"station": 5}' },
      { notebook: new FakeNotebook(), signal: new AbortController().signal }
    );
    expect(result.ok).toBe(false);
    expect(result.output).toContain(
      'invalid arguments for demo__station_reading: /station must be string'
    );
  });

  it('turns a crash into an observation, and the next call restarts the server', async () => {
    const registry = new ToolRegistry([
      ...mcpTools(await client.listServers(), client).tools
    ]);
    const context = {
      notebook: new FakeNotebook(),
      signal: new AbortController().signal
    };
    const crash = await registry.call(
      { id: '1', name: 'demo__crash', arguments: '{}' },
      context
    );
    expect(crash).toMatchObject({ ok: false });
    expect(crash.output).toContain('the server stopped during crash');
    expect(crash.output).toContain('Retry once at most');
    const again = await registry.call(
      { id: '2', name: 'demo__station_reading', arguments: '{"station":"x"}' },
      context
    );
    expect(again).toMatchObject({ ok: true });
  });

  it('a tool that hangs ends the call at the timeout: the run goes on, the listing has a notice', async () => {
    const source = new McpToolSource(client);
    await source.refresh();
    const session = new AgentSession({
      tools: new ToolRegistry(agentTools()),
      extraTools: () => source.toolSet()
    });
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'slow__hang', arguments: {} }] },
      { text: 'The server did not answer.' }
    ]);
    const started = Date.now();
    await session.send('Ask the slow server.', {
      model: () => model,
      notebook: new FakeNotebook()
    });
    expect(Date.now() - started).toBeLessThan(15000);
    const results = model.requests[1].messages
      .filter(m => m.role === 'tool')
      .map(m => m.content);
    expect(results[0]).toContain(
      'slow__hang failed: hang did not answer within 2 s; the call was cancelled'
    );
    expect(results[0]).toContain(
      'Do not call it again with the same arguments'
    );
    expect(session.getSnapshot().items.at(-1)).toMatchObject({
      kind: 'assistant',
      text: 'The server did not answer.'
    });
    // The failed call refreshed the listing: the sidebar shows its notice.
    const deadline = Date.now() + 10000;
    const slow = () =>
      source.getSnapshot().listing?.servers.find(s => s.name === 'slow');
    while (!slow()?.notice && Date.now() < deadline) {
      await new Promise(r => setTimeout(r, 100));
    }
    expect(slow()?.status).toBe('connected');
    expect(slow()?.notice).toContain('hang did not answer within 2 s');
  });

  it('Stop cancels the call in flight on the MCP server', async () => {
    const registry = new ToolRegistry([
      ...mcpTools(await client.listServers(), client).tools
    ]);
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(), 500);
    const result = await registry.call(
      { id: '1', name: 'demo__hang', arguments: '{}' },
      { notebook: new FakeNotebook(), signal: controller.signal }
    );
    expect(result.ok).toBe(false);
    expect(result.output).toContain('stopped');
    expect(Date.now() - started).toBeLessThan(5000);
    const deadline = Date.now() + 5000;
    while (!existsSync(marker) && Date.now() < deadline) {
      await new Promise(r => setTimeout(r, 100));
    }
    expect(existsSync(marker)).toBe(true);
  });
});
