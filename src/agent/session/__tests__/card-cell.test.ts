/**
 * A call's card carries the cell it runs or waits for (the tool-call
 * event's `cellId`), so a chat reopened mid-run names the cells its run
 * left running from the cards alone, without the tools' definitions.
 */
import { AgentSession } from '..';
import { FakeNotebook } from '../../testing/fake-notebook';
import { ScriptedModel } from '../../testing/scripted-model';
import { agentTools } from '../../tools/all-tools';
import { ToolRegistry } from '../../tools/registry';
import type { AgentEvent } from '../../types';
import { settleInterruptedRun } from '../interrupted-run';

describe('the cell on a call’s card', () => {
  it('comes with the tool-call event of a tool that runs the cell it names', async () => {
    const notebook = new FakeNotebook({
      cells: [{ id: 'c1', source: 'print(1)' }],
      execute: () => [{ type: 'stream', name: 'stdout', text: '1\n' }]
    });
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: 'read_notebook', arguments: {} },
          { name: 'run_cell', arguments: { cell_id: 'c1' } }
        ]
      },
      { text: 'It printed 1.' }
    ]);
    const session = new AgentSession({
      tools: new ToolRegistry(agentTools()),
      approvalMode: () => 'run-everything'
    });
    const events: AgentEvent[] = [];
    session.subscribeEvents(event => events.push(event));
    await session.send('Run it', { model: () => model, notebook });
    const calls = events.filter(event => event.type === 'tool-call');
    expect(calls.map(event => event.cellId)).toEqual([undefined, 'c1']);
    const cards = session
      .getSnapshot()
      .items.filter(item => item.kind === 'tool');
    expect(cards.map(card => card.runsCell)).toEqual([undefined, 'c1']);
  });

  it('is what a reopened chat reads, whatever the tool’s name', () => {
    const record = {
      running: true,
      history: [],
      items: [
        { kind: 'user' as const, id: 'u', text: 'go' },
        {
          kind: 'tool' as const,
          id: 't1',
          name: 'some_new_tool',
          arguments: '{}',
          runsCell: 'c7',
          status: 'running' as const
        }
      ]
    };
    const settled = settleInterruptedRun(
      record,
      () => 'n',
      () => null
    );
    expect(settled?.cellIds).toEqual(['c7']);
  });
});
