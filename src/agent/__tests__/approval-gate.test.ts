/**
 * The approval gate: one request waits until the user answers or the run
 * stops, and an answered request leaves no listener on the run's signal.
 */
import { getEventListeners } from 'events';
import type { IApprovalRequest } from '../loop/approval';
import { ApprovalGate } from '../session/approval-gate';

const request = { call: { id: 'c1', name: 'run_cell' } } as IApprovalRequest;

describe('ApprovalGate', () => {
  it('answers with the user’s decision and leaves no listener on the run’s signal', async () => {
    const shown: Array<IApprovalRequest | null> = [];
    const gate = new ApprovalGate(pending => shown.push(pending));
    const run = new AbortController();
    for (let i = 0; i < 12; i++) {
      const asked = gate.ask(request, run.signal);
      gate.resolve({ approved: true });
      await expect(asked).resolves.toEqual({ approved: true });
    }
    expect(getEventListeners(run.signal, 'abort')).toHaveLength(0);
    expect(shown.at(-1)).toBeNull();
  });

  it('says stopped when the run stops while it waits, or had stopped before', async () => {
    const gate = new ApprovalGate(() => undefined);
    const run = new AbortController();
    const asked = gate.ask(request, run.signal);
    run.abort();
    await expect(asked).resolves.toEqual({
      approved: false,
      reason: 'stopped'
    });
    await expect(gate.ask(request, run.signal)).resolves.toEqual({
      approved: false,
      reason: 'stopped'
    });
  });
});
