/**
 * Contract cases on runs that end the usual ways: ok, error, partial
 * output at the soft timeout and `wait`, the hard timeout, the user's Stop,
 * scratch code, a restart, two notebooks at once.
 */
import { formatRunResult } from '../../context/observations';
import type { INotebookPort, IRunResult } from '../../ports';
import * as check from './check';
import { withPort, type IPortCase } from './contract';
import { PROGRAMS } from './programs';

const REFUSED = 'NotebookPortError';

/** Insert a code cell with `source` at the end. */
export async function codeCell(port: INotebookPort, source: string) {
  return (await port.insertCell({ type: 'code', source })).id;
}

/** The cell's outputs must be the result's (what the agent read is what the cell shows). */
export async function cellShowsResult(
  port: INotebookPort,
  result: IRunResult
): Promise<void> {
  const cell = (await port.getCells()).find(c => c.id === result.cellId);
  check.equal(cell?.outputs, result.outputs, 'the cell’s outputs vs the run’s');
}

/** Wait until cell `id` has printed `text` (its code has started). */
export function printed(
  port: INotebookPort,
  id: string,
  text: string,
  ms = 20000
): Promise<number> {
  return check.until(
    async () =>
      check
        .streamText((await port.getCells()).find(c => c.id === id)!.outputs)
        .includes(text),
    ms,
    'the code to start'
  );
}

/** Wait until the kernel is idle again. */
export function idle(port: INotebookPort, ms = 10000): Promise<number> {
  return check.until(() => port.kernelState() === 'idle', ms, 'an idle kernel');
}

export const RUN_CASES: IPortCase[] = [
  {
    name: 'run: ok, outputs in the cell, counts, stale after an edit',
    timeoutMs: 60000,
    run: harness =>
      withPort(harness, [], async port => {
        const a = await codeCell(port, PROGRAMS.defineX);
        const b = await codeCell(port, PROGRAMS.useX);
        const ra = await port.runCell(a);
        const rb = await port.runCell(b);
        check.equal([ra.status, rb.status], ['ok', 'ok'], 'statuses');
        check.equal(check.streamText(rb.outputs), '42\n', 'stdout');
        check.ok(typeof ra.executionCount === 'number', 'an execution count');
        check.equal(
          rb.executionCount,
          ra.executionCount! + 1,
          'the next count'
        );
        check.matches(formatRunResult(rb), /finished OK/, 'observation');
        await cellShowsResult(port, rb);
        await port.editCell(b, 'print(x)');
        const cell = (await port.getCells()).find(c => c.id === b)!;
        check.equal(cell.lastRunSource, PROGRAMS.useX, 'the source last run');
        check.equal(cell.outputs, rb.outputs, 'outputs kept after an edit');
      })
  },
  {
    name: 'run: an error',
    timeoutMs: 60000,
    run: harness =>
      withPort(harness, [], async port => {
        const result = await port.runCell(
          await codeCell(port, PROGRAMS.divide)
        );
        check.equal(result.status, 'error', 'status');
        check.equal(
          check.errorName(result.outputs),
          'ZeroDivisionError',
          'ename'
        );
        check.matches(
          formatRunResult(result),
          /raised an error/,
          'observation'
        );
        await cellShowsResult(port, result);
      })
  },
  {
    name: 'soft timeout: partial output, wait, then interrupt',
    timeoutMs: 60000,
    run: harness =>
      withPort(harness, [], async port => {
        const id = await codeCell(port, PROGRAMS.counter);
        const first = await port.runCell(id, { softTimeoutMs: 1000 });
        check.equal(first.status, 'running', 'status at the soft timeout');
        const text = check.streamText(first.outputs);
        check.matches(text, /^0\n/, 'partial output');
        check.ok(!/\b99\n/.test(text), 'output to be partial');
        check.equal(port.runningCells(), [id], 'the running cells');
        check.matches(
          formatRunResult(first),
          /still running[\s\S]*wait/,
          'observation'
        );
        const second = await port.waitForCell(id, { softTimeoutMs: 500 });
        check.equal(second.status, 'running', 'status after a wait');
        check.ok(
          check.streamText(second.outputs).startsWith(text) &&
            check.streamText(second.outputs).length > text.length,
          'more output after the wait'
        );
        await port.interrupt();
        const last = await port.waitForCell(id, { softTimeoutMs: 10000 });
        check.equal(last.status, 'aborted', 'status after interrupt');
        check.equal(
          check.errorName(last.outputs),
          'KeyboardInterrupt',
          'ename'
        );
        check.equal(port.runningCells(), [], 'the running cells at the end');
        await cellShowsResult(port, last);
        // The finished run can still be waited for.
        check.equal(
          (await port.waitForCell(id)).status,
          'aborted',
          'wait again'
        );
      })
  },
  {
    name: 'run: a cell still running is refused; wait on a cell never run is refused',
    timeoutMs: 60000,
    run: harness =>
      withPort(harness, [], async port => {
        const never = await codeCell(port, PROGRAMS.answer);
        await check.rejects(
          () => port.waitForCell(never),
          REFUSED,
          /has not been run by the agent[\s\S]*run_cell/,
          'waiting for a cell never run'
        );
        const id = await codeCell(port, PROGRAMS.counter);
        check.equal(
          (await port.runCell(id, { softTimeoutMs: 300 })).status,
          'running',
          'status'
        );
        await check.rejects(
          () => port.runCell(id),
          REFUSED,
          /still running[\s\S]*wait[\s\S]*interrupt_kernel/,
          'running it again'
        );
        await port.interrupt();
        check.equal(
          (await port.waitForCell(id, { softTimeoutMs: 10000 })).status,
          'aborted',
          'status'
        );
      })
  },
  {
    name: 'hard timeout: the kernel is interrupted',
    timeoutMs: 60000,
    run: harness =>
      withPort(harness, [], async port => {
        const id = await codeCell(port, PROGRAMS.sleeper);
        const result = await port.runCell(id, { hardTimeoutMs: 1500 });
        check.equal(result.status, 'timeout', 'status');
        check.ok((result.elapsedMs ?? 0) >= 1400, 'at least the hard timeout');
        check.below(result.elapsedMs ?? Infinity, 15000, 'elapsed ms');
        check.matches(
          formatRunResult(result),
          /hit the hard time limit/,
          'observation'
        );
        await idle(port, 5000);
      })
  },
  {
    name: 'a soft timeout while stopping waits for the end: never running',
    timeoutMs: 60000,
    run: harness =>
      withPort(harness, [], async port => {
        // Interrupted at the hard timeout, the code takes 1.5 s to clean
        // up: the soft timeout falls while the run is stopping, and the
        // watch waits for the end (bounded by the grace period).
        const id = await codeCell(port, PROGRAMS.slowStop);
        const result = await port.runCell(id, {
          hardTimeoutMs: 1000,
          softTimeoutMs: 1500
        });
        check.equal(result.status, 'timeout', 'status');
        check.matches(
          check.streamText(result.outputs),
          /working\n[\s\S]*cleaned up\n/,
          'the output of the clean-up'
        );
        check.equal(
          check.errorName(result.outputs),
          'KeyboardInterrupt',
          'ename'
        );
        check.equal(port.runningCells(), [], 'the running cells');
        await cellShowsResult(port, result);
        await idle(port, 5000);
      })
  },
  {
    name: 'the user’s Stop (abort signal) interrupts and leaves the kernel idle',
    timeoutMs: 60000,
    run: harness =>
      withPort(harness, [], async port => {
        const id = await codeCell(port, PROGRAMS.sleeper);
        const controller = new AbortController();
        setTimeout(() => controller.abort(), 500);
        const result = await port.runCell(id, { signal: controller.signal });
        check.equal(result.status, 'aborted', 'status');
        check.below(result.elapsedMs ?? Infinity, 15000, 'elapsed ms');
        check.matches(
          formatRunResult(result),
          /interrupted by the user/,
          'observation'
        );
        await idle(port, 5000);
        const next = await port.runCell(await codeCell(port, PROGRAMS.answer));
        check.equal(next.status, 'ok', 'the next run');
      })
  },
  {
    name: 'the user’s Stop also ends runs left running after a soft timeout',
    timeoutMs: 60000,
    run: harness =>
      withPort(harness, [], async port => {
        const id = await codeCell(port, PROGRAMS.counter);
        check.equal(
          (await port.runCell(id, { softTimeoutMs: 300 })).status,
          'running',
          'status'
        );
        await port.interrupt({ userStop: true });
        check.equal(port.runningCells(), [], 'running cells after the Stop');
        const result = await port.waitForCell(id);
        check.equal(result.status, 'aborted', 'status');
        check.equal(
          check.errorName(result.outputs),
          'KeyboardInterrupt',
          'ename'
        );
        await idle(port, 5000);
      })
  },
  {
    name: 'scratch code: no cell, and silent code leaves the counts alone',
    timeoutMs: 60000,
    run: harness =>
      withPort(harness, [], async port => {
        const before = (await port.getCells()).length;
        const probe = await codeCell(port, '1');
        const counted = await port.runCell(probe);
        const scratch = await port.executeCode(PROGRAMS.answer, {
          silent: true
        });
        check.equal(scratch.status, 'ok', 'status');
        check.equal(scratch.cellId, null, 'cell id');
        check.equal(check.streamText(scratch.outputs), '42\n', 'stdout');
        const loud = await port.executeCode(PROGRAMS.product);
        check.matches(
          JSON.stringify(loud.outputs),
          /"text\/plain":"42"/,
          'a result'
        );
        const again = await port.runCell(probe);
        check.equal(
          again.executionCount,
          counted.executionCount! + 1,
          'the count'
        );
        check.equal((await port.getCells()).length, before + 1, 'cells');
      })
  },
  {
    name: 'restart: the kernel comes back without the variables',
    timeoutMs: 60000,
    run: harness =>
      withPort(harness, [], async port => {
        await port.runCell(await codeCell(port, PROGRAMS.defineX));
        await port.restartKernel();
        await idle(port, 15000);
        const after = await port.executeCode(PROGRAMS.useX);
        check.equal(
          check.errorName(after.outputs),
          'NameError',
          'x after a restart'
        );
      })
  },
  {
    name: 'two notebooks at once stay apart',
    timeoutMs: 90000,
    run: harness =>
      withPort(harness, [], left =>
        withPort(harness, [], async right => {
          const started = Date.now();
          const [l, r] = await Promise.all([
            left.runCell(await codeCell(left, PROGRAMS.whoLeft)),
            right.runCell(await codeCell(right, PROGRAMS.whoRight))
          ]);
          check.equal(check.streamText(l.outputs), 'left\n', 'left output');
          check.equal(check.streamText(r.outputs), 'right\n', 'right output');
          check.below(Date.now() - started, 1900 + 5000, 'side by side (ms)');
          check.below(
            Date.now() - started,
            (l.elapsedMs ?? 0) + (r.elapsedMs ?? 0),
            'together, not one after the other (ms)'
          );
        })
      )
  }
];
