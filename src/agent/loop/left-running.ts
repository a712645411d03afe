/**
 * Cells the agent ran that are still running (a soft timeout returned
 * their partial output and the run went on). A run does not end on an
 * answer given over such a cell without saying so: the model is reminded
 * once to wait for it or interrupt it, and if it answers again the run ends
 * naming the cell, for the user to interrupt.
 */
import type { INotebookPort } from '../ports';
import type { RunState } from '../tools/run-state';
import type { IRunningCell } from '../types';

/** Longest first line shown in a cell's label. */
const LABEL_CHARS = 40;

/**
 * The cells of `state.running` the port still runs, with labels; the ones
 * that ended meanwhile leave `state.running`. Never interrupts anything.
 */
export async function cellsLeftRunning(
  notebook: INotebookPort,
  state: RunState
): Promise<IRunningCell[]> {
  if (!state.running.size) {
    return [];
  }
  const cells = await notebook.getCells().catch(() => []);
  const left: IRunningCell[] = [];
  for (const id of [...state.running]) {
    let running = false;
    try {
      // A glance, not a wait: no signal (an aborted one would interrupt).
      const result = await notebook.waitForCell(id, {
        softTimeoutMs: 1,
        hardTimeoutMs: state.settings.hardTimeoutMs
      });
      running = result.status === 'running';
    } catch {
      // The cell is gone (deleted, notebook closed): nothing to name.
    }
    if (!running) {
      state.running.delete(id);
      continue;
    }
    const index = cells.findIndex(cell => cell.id === id);
    left.push({ id, label: cellLabel(index, cells[index]?.source ?? '') });
  }
  return left;
}

/** "cell 2 (import time)": its position in the notebook and first line. */
export function cellLabel(index: number, source: string): string {
  const first = source.split('\n').find(line => line.trim()) ?? '';
  const line =
    first.length > LABEL_CHARS ? `${first.slice(0, LABEL_CHARS - 1)}…` : first;
  const name = index >= 0 ? `cell ${index + 1}` : 'a cell';
  return line ? `${name} (${line.trim()})` : name;
}

/** What the model reads when it answers while its cells still run. */
export function stillRunningReminder(
  cells: ReadonlyArray<IRunningCell>
): string {
  const list = cells
    .map(cell => `${cell.label}, cell_id ${cell.id}`)
    .join('; ');
  return (
    `Before you answer: code you ran is still running in the kernel (${list}), so ` +
    'the output you saw of it is partial. Call `wait` with its cell_id to get its ' +
    'result, or `interrupt_kernel` to stop it, then answer. If it should keep running ' +
    'after your answer (e.g. a long job the user will check), answer again and say ' +
    'so: the user will see that it is still running.'
  );
}

/** The transcript's line when the model is reminded. */
export function reminderNotice(cells: ReadonlyArray<IRunningCell>): string {
  return `Still running: ${cells.map(cell => cell.label).join(', ')}. The agent was asked to wait for it or stop it before answering.`;
}
