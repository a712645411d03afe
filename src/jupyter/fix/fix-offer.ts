/**
 * Which outputs get a "Fix with Agent" button: an error, except the user's
 * own interrupt (KeyboardInterrupt: the cell was stopped, not broken).
 */

/** An output as the notebook stores it (nbformat), as far as this needs. */
export interface IOutputLike {
  output_type?: string;
  ename?: unknown;
}

/** Errors that are not a fault of the code (the user interrupted the kernel). */
const NOT_A_FAULT = new Set(['KeyboardInterrupt']);

/** Whether outputs show an error worth fixing. */
export function offersFix(outputs: ReadonlyArray<IOutputLike>): boolean {
  return outputs.some(
    output =>
      output.output_type === 'error' &&
      !NOT_A_FAULT.has(String(output.ename ?? ''))
  );
}
