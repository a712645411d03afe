/**
 * What the transcript says of tool calls is true: each card has its tool's
 * title in words, its duration counts the run and not the approval wait, a
 * rejection is "rejected" with the user's reason (not an error), and the
 * text protocol's code shows once (on its card, not also in the answer).
 */
import type { Approver } from '../../loop/approval';
import { runAgent } from '../../loop/run-agent';
import { runConfig } from '../../loop/run-config';
import { withoutCodeBlock } from '../../loop/code-blocks';
import { TEXT_PROTOCOL_TOOL } from '../../loop/code-block-names';
import { FakeNotebook } from '../../testing/fake-notebook';
import { ScriptedModel, type ScriptedTurn } from '../../testing/scripted-model';
import { agentTools } from '../../tools/all-tools';
import { mcpTool } from '../../tools/mcp-tools';
import type { IMcpClient } from '../../tools/mcp-types';
import { ToolRegistry, nameInWords } from '../../tools/registry';
import type { AgentEvent } from '../../types';
import { SessionStore } from '../store';
import type { TranscriptItem } from '../types';

const printKernel = (source: string) => [
  {
    type: 'stream' as const,
    name: 'stdout' as const,
    text: `${source.replace(/^print\((.*)\)$/, '$1')}\n`
  }
];

/** Run `turns`; the clock advances 5 s while the user decides, 1 s while a cell runs. */
async function transcript(
  turns: ScriptedTurn[],
  approve: Approver,
  tools = new ToolRegistry(agentTools())
): Promise<{ items: ReadonlyArray<TranscriptItem>; events: AgentEvent[] }> {
  let clock = 0;
  const notebook = new FakeNotebook({
    execute: source => {
      clock += 1000;
      return printKernel(source);
    }
  });
  const events: AgentEvent[] = [];
  // The chat's record: the transcript is derived from what the run kept.
  const store = new SessionStore();
  store.apply({
    type: 'message',
    message: { role: 'system', content: 'system' }
  });
  store.apply({ type: 'message', message: { role: 'user', content: 'do it' } });
  await runAgent(runConfig({ model: new ScriptedModel(turns), tools }), {
    notebook,
    conversation: store,
    signal: new AbortController().signal,
    now: () => clock,
    approve: async (request, signal) => {
      clock += 5000;
      return approve(request, signal);
    },
    onEvent: event => {
      events.push(event);
      store.dispatch(event);
    }
  });
  return { items: store.getSnapshot().items, events };
}

const tools = (items: ReadonlyArray<TranscriptItem>) =>
  items.filter(
    (item): item is Extract<TranscriptItem, { kind: 'tool' }> =>
      item.kind === 'tool'
  );

describe('cards say what is true', () => {
  it('titles in words; the duration counts the run, not the 5 s the user took to approve', async () => {
    const { items } = await transcript(
      [
        { toolCalls: [{ name: 'read_notebook', arguments: {} }] },
        {
          toolCalls: [
            { name: 'insert_cell', arguments: { source: 'print(42)' } }
          ]
        },
        { toolCalls: [{ name: 'run_cell', arguments: { cell_id: 'cell-1' } }] },
        { text: 'It printed 42.' }
      ],
      async () => ({ approved: true })
    );
    const cards = tools(items);
    expect(cards.map(card => card.title)).toEqual([
      'Read the notebook',
      'Insert this cell',
      'Run this cell'
    ]);
    const run = cards[2];
    expect(run.status).toBe('done');
    expect(run.durationMs).toBe(1000);
  });

  it('a rejection is "rejected" with the user’s reason; the model still gets its message', async () => {
    const { items, events } = await transcript(
      [
        { toolCalls: [{ name: 'run_code', arguments: { code: 'print(1)' } }] },
        { text: 'I will not run it.' }
      ],
      async () => ({ approved: false, reason: '  not now ' })
    );
    const [card] = tools(items);
    expect(card.status).toBe('rejected');
    expect(card.reason).toBe('not now');
    expect(card.output).toContain('Do not retry it unchanged');
    const result = events.find(e => e.type === 'tool-result');
    expect(result?.type === 'tool-result' && result.result.ok).toBe(false);
    const silent = await transcript(
      [
        { toolCalls: [{ name: 'run_code', arguments: { code: 'print(1)' } }] },
        { text: 'OK.' }
      ],
      async () => ({ approved: false })
    );
    expect(tools(silent.items)[0]).toMatchObject({ status: 'rejected' });
    expect(tools(silent.items)[0].reason).toBeUndefined();
  });

  it('an MCP tool reads "Use <tool> from <server>"; a tool without a title reads as words', () => {
    const client: IMcpClient = {
      list: async () => ({ servers: [], errors: [] }),
      call: async () => ({ ok: true, content: [] })
    } as unknown as IMcpClient;
    const tool = mcpTool(
      {
        name: 'weather',
        transport: 'stdio',
        source: 'config',
        status: 'connected',
        error: null,
        restarts: 0,
        timeout: 30,
        tools: [],
        skipped_tools: []
      },
      {
        name: 'weather__forecast',
        tool: 'forecast',
        description: 'The forecast',
        input_schema: { type: 'object' },
        auto_approve: false
      },
      client
    );
    const registry = new ToolRegistry([tool]);
    expect(
      registry.titleOf({ id: '1', name: 'weather__forecast', arguments: '{}' })
    ).toBe('Use forecast from weather');
    expect(nameInWords('list_things')).toBe('List things');
    expect(
      registry.titleOf({ id: '2', name: 'gone_tool', arguments: '' })
    ).toBe('Gone tool');
  });

  it('a per-call title function sees the arguments (e.g. insert and run)', () => {
    const registry = new ToolRegistry([
      {
        name: 'put',
        kind: 'edit',
        description: 'put',
        parameters: { type: 'object' },
        title: (args: { run?: boolean }) =>
          args.run ? 'Insert and run this cell' : 'Insert this cell',
        execute: async () => ({ ok: true, output: '' })
      }
    ]);
    expect(
      registry.titleOf({ id: '1', name: 'put', arguments: '{"run": true}' })
    ).toBe('Insert and run this cell');
    expect(registry.titleOf({ id: '2', name: 'put', arguments: '{}' })).toBe(
      'Insert this cell'
    );
  });

  it('text protocol: the answer’s code block that became a call is shown once, on its card', () => {
    const answer =
      'I will compute it:\n\n```python\nprint(6 * 7)\n```\n\nThen I read it.';
    const store = new SessionStore();
    store.apply({
      type: 'reply',
      message: { role: 'assistant', content: answer }
    });
    // The card says what its record says: the code the call carries.
    store.apply({
      type: 'call',
      call: {
        id: 't1',
        name: TEXT_PROTOCOL_TOOL,
        arguments: JSON.stringify({ source: 'print(6 * 7)' })
      },
      card: { title: 'Insert and run this cell', code: 'print(6 * 7)' }
    });
    const state = store.getSnapshot();
    expect(state.items[0]).toEqual({
      kind: 'assistant',
      id: 'item-1',
      text: 'I will compute it:\n\nThen I read it.'
    });
    expect(state.items[1]).toMatchObject({
      kind: 'tool',
      title: 'Insert and run this cell'
    });
    // Other code in the answer stays.
    expect(withoutCodeBlock('```python\nx = 1\n```', 'y = 2')).toBe(
      '```python\nx = 1\n```'
    );
  });
});
