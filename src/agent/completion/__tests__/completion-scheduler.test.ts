import { CompletionScheduler, type Waiter } from '../completion-scheduler';
import { quietReason } from '../completion-policy';

/** A waiter the test releases by hand. */
function manualWaits(): { wait: Waiter; release(): void; delays: number[] } {
  const pending: Array<() => void> = [];
  const delays: number[] = [];
  return {
    delays,
    wait: (ms, signal) =>
      new Promise(resolve => {
        delays.push(ms);
        pending.push(resolve);
        signal.addEventListener('abort', () => resolve(), { once: true });
      }),
    release: () => pending.splice(0).forEach(resolve => resolve())
  };
}

describe('the completion scheduler', () => {
  it('runs only the last of several quick requests, after the debounce', async () => {
    const waits = manualWaits();
    const scheduler = new CompletionScheduler(() => 250, waits.wait);
    const work = jest.fn(async () => 'done');
    const first = scheduler.schedule(work);
    const second = scheduler.schedule(work);
    const third = scheduler.schedule(work);
    // The first two were aborted while they waited.
    await expect(first).resolves.toBeNull();
    await expect(second).resolves.toBeNull();
    expect(work).not.toHaveBeenCalled();
    waits.release();
    await expect(third).resolves.toBe('done');
    expect(work).toHaveBeenCalledTimes(1);
    expect(waits.delays).toEqual([250, 250, 250]);
  });

  it('aborts the running work when the next keystroke comes', async () => {
    const waits = manualWaits();
    const scheduler = new CompletionScheduler(() => 0, waits.wait);
    let seen: AbortSignal | null = null;
    const running = scheduler.schedule(
      signal =>
        new Promise<string>((resolve, reject) => {
          seen = signal;
          signal.addEventListener('abort', () => reject(new Error('aborted')));
        })
    );
    waits.release();
    await new Promise(resolve => setImmediate(resolve));
    expect(seen).not.toBeNull();
    expect(scheduler.pending).toBe(true);
    void scheduler.schedule(async () => 'next');
    expect(seen!.aborted).toBe(true);
    // The aborted work's failure is not an error: it is no suggestion.
    await expect(running).resolves.toBeNull();
  });

  it('cancel() stops what waits; errors of live work reach the caller', async () => {
    const waits = manualWaits();
    const scheduler = new CompletionScheduler(() => 100, waits.wait);
    const waiting = scheduler.schedule(async () => 'x');
    scheduler.cancel();
    await expect(waiting).resolves.toBeNull();
    expect(scheduler.pending).toBe(false);
    const failing = scheduler.schedule(async () => {
      throw new Error('404 model not found');
    });
    waits.release();
    await expect(failing).rejects.toThrow('404 model not found');
  });
});

describe('when completion stays quiet', () => {
  const idle = {
    agentBusy: false,
    kernelBusy: false,
    sharesAgentModel: true,
    onThisMachine: true
  };
  it('asks when nothing else needs the model', () => {
    expect(quietReason(idle)).toBeNull();
  });
  it('not while the agent runs on the same model; yes when the agent uses another', () => {
    expect(quietReason({ ...idle, agentBusy: true })).toMatch(/agent/);
    expect(
      quietReason({ ...idle, agentBusy: true, sharesAgentModel: false })
    ).toBeNull();
  });
  it('not while the kernel computes on the CPU a local model shares', () => {
    expect(quietReason({ ...idle, kernelBusy: true })).toMatch(/kernel/);
    expect(
      quietReason({ ...idle, kernelBusy: true, onThisMachine: false })
    ).toBeNull();
  });
});
