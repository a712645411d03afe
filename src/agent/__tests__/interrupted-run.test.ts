/**
 * A reopened mid-run chat names the cells its run may have left running by
 * the tools' properties, not their names (session/interrupted-run.ts).
 */
import {
  agentRunsCell,
  runsNamedCell,
  settleInterruptedRun
} from '../session/interrupted-run';
import { agentTools } from '../tools/all-tools';
import type { ITool } from '../tools/registry';

describe('the tools that run the cell they name', () => {
  it('are, among the agent’s own, run_cell and wait', () => {
    const names = (agentTools() as ITool<unknown>[])
      .filter(runsNamedCell)
      .map(tool => tool.name);
    expect(names.sort()).toEqual(['run_cell', 'wait']);
    expect(agentRunsCell()('edit_cell', '{"cell_id":"c1"}')).toBeNull();
    expect(agentRunsCell()('run_cell', '{"cell_id":"c1"}')).toBe('c1');
    expect(agentRunsCell()('wait', '{"cell_id":"c2","seconds":5}')).toBe('c2');
    expect(agentRunsCell()('run_cell', 'not json')).toBeNull();
  });

  it('are read from the lookup a record is settled with', () => {
    const card = (status: 'running' | 'done') => ({
      kind: 'tool' as const,
      id: `t-${status}`,
      name: 'watch',
      arguments: '{"cell_id":"c1"}',
      status
    });
    const record = {
      running: true,
      history: [],
      items: [{ kind: 'user' as const, id: 'u', text: 'go' }, card('running')]
    };
    const named = settleInterruptedRun(
      record,
      () => 'n',
      (n, args) =>
        n === 'watch' ? (JSON.parse(args) as { cell_id: string }).cell_id : null
    );
    expect(named?.cellIds).toEqual(['c1']);
    const unknown = settleInterruptedRun(
      record,
      () => 'n',
      () => null
    );
    expect(unknown?.cellIds).toEqual([]);
    const finished = settleInterruptedRun(
      { ...record, items: [...record.items, card('done')] },
      () => 'n',
      (n, args) =>
        n === 'watch' ? (JSON.parse(args) as { cell_id: string }).cell_id : null
    );
    expect(finished?.cellIds).toEqual([]);
  });
});
