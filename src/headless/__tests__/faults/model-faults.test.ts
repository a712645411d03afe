/**
 * Model-side fault injection, headless: the real agent (AgentSession, the
 * loop, the tools, OpenAIChatClient) against the scripted model server's
 * fault modes, in a real notebook on a real Jupyter server and kernel,
 * once with the client calling the model server directly and once through
 * the server extension's proxy.
 *
 * Every case asserts that the run ends (or goes on) as designed within a
 * bounded time, that the user sees a specific error, that every cell of
 * the user's notebook is still there byte for byte (in memory and in the
 * saved file) with only the cells the agent was asked to add, that one
 * undo restores the notebook, and that the key shows up nowhere.
 */
import type { IOpenAIClientOptions } from '../../../agent/model/openai-client';
import type { IAgentError, RunEndReason } from '../../../agent/types';
import { ServerNotebookPort } from '../../server-port/server-port';
import { runAgentOnce, type IRunReport } from './agent-run';
import { FaultSummary } from './fault-summary';
import {
  SECRET,
  startFaultStack,
  type IFaultStack,
  type Route
} from './fault-stack';
import {
  notebookDelta,
  sourcesOf,
  sourcesOnDisk,
  writeUserNotebook
} from './user-notebook';
import { SERVER_START_MS } from '../server-start';

jest.setTimeout(60000);

/** One fault and what the user must see. */
interface IFaultCase {
  name: string;
  turns: unknown[];
  client?: Partial<IOpenAIClientOptions> & { down?: boolean };
  /** The run must end within this long. */
  limitMs: number;
  reason: RunEndReason;
  kind?: IAgentError['kind'];
  message?: RegExp;
  hint?: RegExp;
  /** Cells the agent was asked to add (default none). */
  added?: number;
  /** Stop the run this long after it started. */
  stopAfterMs?: number;
  verify?: (report: IRunReport, route: Route) => Promise<void> | void;
}

const BIG_REPLY = 'All work and no play makes a long answer. '.repeat(125_000);

const summaries: Record<Route, FaultSummary> = {
  direct: new FaultSummary('model faults (direct)'),
  proxy: new FaultSummary('model faults (through the proxy)')
};

let stack: IFaultStack;

beforeAll(async () => {
  // @jupyterlab/services logs kernel traffic; the openai SDK logs bad JSON.
  jest.spyOn(console, 'debug').mockImplementation(() => undefined);
  jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  jest.spyOn(console, 'error').mockImplementation(() => undefined);
  stack = await startFaultStack();
}, SERVER_START_MS);

afterAll(async () => {
  summaries.direct.print();
  summaries.proxy.print();
  await stack?.dispose();
}, 30000);

/** The upstream request of a stalled turn must not outlive the run. */
async function expectUpstreamClosed(): Promise<void> {
  const deadline = Date.now() + 3000;
  for (;;) {
    const [record] = await stack.model.received<{
      completed?: boolean;
      disconnected_at?: number;
    }>();
    if (record?.disconnected_at !== undefined || Date.now() > deadline) {
      expect(record?.completed).toBe(false);
      expect(record?.disconnected_at).toBeDefined();
      return;
    }
    await new Promise(resolve => setTimeout(resolve, 50));
  }
}

function toolMessages(report: IRunReport): string[] {
  return report.session.history
    .filter(m => m.role === 'tool')
    .map(m => m.content as string);
}

const CASES: IFaultCase[] = [
  {
    name: 'connection refused',
    turns: [],
    client: { down: true },
    limitMs: 20000,
    reason: 'error',
    kind: 'unreachable',
    message: /could not be reached|could not reach/i
  },
  {
    name: 'reset before the first byte',
    turns: [{ fault: 'reset' }, { fault: 'reset' }, { fault: 'reset' }],
    limitMs: 20000,
    reason: 'error',
    kind: 'unreachable',
    message: /could not be reached|could not reach/i
  },
  {
    name: 'drop mid-stream (text)',
    turns: [
      {
        content: 'The mean of column a is 42.5 and the median',
        chunk_size: 4,
        drop_after: 5
      }
    ],
    limitMs: 20000,
    reason: 'error',
    kind: 'unreachable',
    message: /broke off/i,
    verify: report => {
      expect(report.transcript).toContain('The mean of');
      expect(report.transcript).not.toContain('the median');
    }
  },
  {
    name: 'drop mid tool-call arguments',
    turns: [
      {
        tool_calls: [
          {
            name: 'insert_cell',
            arguments: {
              source: "import os\nos.remove('precious.csv')",
              cell_type: 'code'
            }
          }
        ],
        chunk_size: 6,
        drop_after: 5
      }
    ],
    limitMs: 20000,
    reason: 'error',
    kind: 'unreachable',
    message: /broke off/i,
    verify: report => {
      expect(report.transcript).not.toContain('"tool-call"');
      expect(toolMessages(report)).toEqual([]);
    }
  },
  {
    name: '401',
    turns: [
      {
        status: 401,
        error: { message: `Incorrect API key provided: ${SECRET}` }
      }
    ],
    limitMs: 15000,
    reason: 'error',
    kind: 'auth',
    message: /401.*Incorrect API key/
  },
  {
    name: '404 (unknown model)',
    turns: [
      {
        status: 404,
        error: {
          message: 'The model `scripted-model` does not exist',
          code: 'model_not_found'
        }
      }
    ],
    limitMs: 15000,
    reason: 'error',
    kind: 'unknown-model',
    message: /does not exist/
  },
  {
    name: '429 with Retry-After: 1, then an answer',
    turns: [
      {
        status: 429,
        error: { message: 'Rate limit reached' },
        headers: { 'Retry-After': '1' }
      },
      { content: 'Recovered after the wait.' }
    ],
    limitMs: 15000,
    reason: 'completed',
    verify: report => {
      expect(report.ms).toBeGreaterThanOrEqual(900);
      expect(report.transcript).toContain('Recovered after the wait.');
    }
  },
  {
    name: '429 with a long Retry-After',
    turns: Array.from({ length: 4 }, () => ({
      status: 429,
      error: { message: 'Rate limit reached for requests' },
      headers: { 'Retry-After': '120' }
    })),
    limitMs: 15000,
    reason: 'error',
    kind: 'rate-limit',
    message: /429.*Rate limit reached/,
    hint: /wait 2 min/
  },
  {
    name: '500',
    turns: Array.from({ length: 4 }, () => ({
      status: 500,
      error: { message: 'The server had an error processing your request' }
    })),
    limitMs: 20000,
    reason: 'error',
    kind: 'server',
    message: /500.*server had an error/
  },
  {
    name: '503',
    turns: Array.from({ length: 4 }, () => ({
      status: 503,
      error: { message: 'The engine is currently overloaded' }
    })),
    limitMs: 20000,
    reason: 'error',
    kind: 'server',
    message: /503.*overloaded/
  },
  {
    name: 'stream stalls (idle timeout)',
    turns: [
      {
        content: 'Let me think about this',
        chunk_size: 6,
        stall: 60,
        stall_after: 2
      }
    ],
    client: { idleTimeoutMs: 1500 },
    limitMs: 10000,
    reason: 'error',
    kind: 'timeout',
    message: /sent nothing for 1\.5 s/,
    verify: async report => {
      expect(report.ms).toBeGreaterThanOrEqual(1400);
      await expectUpstreamClosed();
    }
  },
  {
    name: 'stream stalls, the user stops',
    turns: [
      {
        content: 'Let me think about this',
        chunk_size: 6,
        stall: 60,
        stall_after: 2
      }
    ],
    stopAfterMs: 800,
    limitMs: 10000,
    reason: 'stopped',
    verify: async report => {
      expect(report.error).toBeNull();
      await expectUpstreamClosed();
    }
  },
  {
    name: 'malformed SSE',
    turns: [
      { sse: 'data: {"choices": [{"delta": {not json}\n\ndata: [DONE]\n\n' }
    ],
    limitMs: 15000,
    reason: 'error',
    kind: 'bad-response',
    message: /not valid JSON/
  },
  {
    name: 'not SSE at all',
    turns: [{ sse: '<html><body>Welcome to nginx!</body></html>' }],
    limitMs: 15000,
    reason: 'error',
    kind: 'bad-response',
    message: /no data/i
  },
  {
    name: 'invalid JSON in tool arguments',
    turns: [
      {
        tool_calls: [
          {
            name: 'insert_cell',
            arguments: '{"source": "x = 1", "cell_type": '
          }
        ]
      },
      { content: 'I could not insert the cell.' }
    ],
    limitMs: 15000,
    reason: 'completed',
    verify: report => {
      expect(toolMessages(report)).toEqual([
        expect.stringMatching(/arguments of insert_cell are not valid JSON/)
      ]);
    }
  },
  {
    name: 'unknown tool',
    turns: [
      { tool_calls: [{ name: 'format_disk', arguments: { disk: '/' } }] },
      { content: 'There is no such tool.' }
    ],
    limitMs: 15000,
    reason: 'completed',
    verify: report => {
      expect(toolMessages(report)).toEqual([
        expect.stringMatching(/no tool named "format_disk"/)
      ]);
    }
  },
  {
    name: '200 tool calls in one turn',
    turns: [
      {
        tool_calls: Array.from({ length: 200 }, (_, i) => ({
          name: 'insert_cell',
          arguments: { source: `Note ${i}`, cell_type: 'markdown' }
        })),
        chunk_size: 500
      },
      { content: 'Added 200 notes.' }
    ],
    limitMs: 30000,
    reason: 'completed',
    added: 200,
    verify: report => {
      expect(toolMessages(report)).toHaveLength(200);
    }
  },
  {
    name: '5 MB text reply',
    turns: [{ content: BIG_REPLY, chunk_size: 8192 }],
    limitMs: 30000,
    reason: 'completed',
    verify: report => {
      const last = report.session.history[report.session.history.length - 1];
      expect(last.role).toBe('assistant');
      expect(last.content).toBe(BIG_REPLY);
    }
  }
];

describe.each<Route>(['direct', 'proxy'])('model faults, %s', route => {
  const path = `model-faults-${route}.ipynb`;
  let port: ServerNotebookPort;
  let original: Array<[string, string]>;

  beforeAll(async () => {
    await writeUserNotebook(stack.jupyter.serverSettings, path);
    port = await ServerNotebookPort.open({
      serverSettings: stack.jupyter.serverSettings,
      path
    });
    original = sourcesOf(await port.getCells());
  }, 60000);

  afterAll(async () => {
    await port?.close({ shutdownKernel: true });
  });

  it.each(CASES.map(c => [c.name, c] as const))('%s', async (_, fault) => {
    await summaries[route].run(fault.name, async findings => {
      const before = await port.getCells();
      await stack.model.script(fault.turns);
      const report = await runAgentOnce({
        model: stack.client(route, fault.client),
        notebook: port,
        prompt: `Fault case: ${fault.name}`,
        limitMs: fault.limitMs,
        during: fault.stopAfterMs
          ? session => setTimeout(() => session.stop(), fault.stopAfterMs)
          : undefined
      });
      const after = await port.getCells();
      await port.save();
      const onDisk = await sourcesOnDisk(stack.jupyter.serverSettings, path);
      const delta = notebookDelta(before, after);
      findings.cellsLost =
        delta.lost.length +
        original.filter(
          ([id, source]) => !onDisk.some(([i, s]) => i === id && s === source)
        ).length;
      findings.leaks = [report.transcript, JSON.stringify(onDisk)].filter(
        text => text.includes(SECRET)
      ).length;

      expect(report.outcome?.reason).toBe(fault.reason);
      if (fault.kind) {
        expect(report.error?.kind).toBe(fault.kind);
      }
      if (fault.message) {
        expect(report.error?.message).toMatch(fault.message);
      }
      if (fault.hint) {
        expect(report.error?.hint).toMatch(fault.hint);
      }
      await fault.verify?.(report, route);
      expect(delta.lost).toEqual([]);
      expect(delta.added).toHaveLength(fault.added ?? 0);
      expect(findings).toEqual({ cellsLost: 0, leaks: 0 });

      // One undo puts the notebook back as it was, in memory and on disk.
      expect(port.undo()).toBe(true);
      expect(sourcesOf(await port.getCells())).toEqual(original);
      await port.save();
      expect(await sourcesOnDisk(stack.jupyter.serverSettings, path)).toEqual(
        original
      );
    });
  });
});
