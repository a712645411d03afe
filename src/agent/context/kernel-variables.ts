/**
 * What the kernel holds now, said to a small model where it must write
 * code against the notebook's state: a fix, a follow-up question, a step
 * of Generate. The user's variables with type and shape, DataFrames with
 * their columns and dtypes (text read as `object` is the usual cause of a
 * wrong sum or a failed date operation), a short repr of the rest.
 *
 * Measured with Qwen2.5-Coder-1.5B: asked a follow-up ("which product has
 * the highest mean unit_price?"), it answered from memory; asked to fix
 * `groupby('regoin')`, it could not know the column is `region`. A capable
 * model calls inspect_variables; a small one uses what it is shown.
 */
import type { INotebookPort } from '../ports';
import {
  probeVariables,
  type IProbeOptions,
  type IVariableRow
} from '../tools/variables-probe';
import { describeVariableRows } from './attachments';

/** The probe: the user's variables, a short repr of each. */
export const KERNEL_PROBE: IProbeOptions = { reprChars: 80, limit: 12 };

/** Characters of the note, at most. */
const MAX_NOTE = 2000;

/** The note for the probe's rows, or null when the kernel holds nothing of the user's. */
export function kernelNote(
  rows: ReadonlyArray<IVariableRow> | null
): string | null {
  if (!rows?.length) {
    return null;
  }
  const text = describeVariableRows(rows, '- ');
  return `Variables in the kernel now:\n${text.length > MAX_NOTE ? `${text.slice(0, MAX_NOTE)}…` : text}`;
}

/** The note for the kernel now, or null (no variables, or no answer within 10 s). */
export async function kernelVariables(
  notebook: INotebookPort,
  signal: AbortSignal
): Promise<string | null> {
  return (await kernelState(notebook, signal)).note;
}

/** The kernel's variables now (null: no answer within 10 s) and their note. */
export async function kernelState(
  notebook: INotebookPort,
  signal: AbortSignal
): Promise<{ rows: IVariableRow[] | null; note: string | null }> {
  const rows = await probeVariables(notebook, KERNEL_PROBE, signal, 10_000);
  return { rows, note: kernelNote(rows) };
}
