/**
 * Which tools run (or wait for) the cell their arguments name, read from
 * the tools' properties: the loop puts that cell on the call's card
 * (loop/tool-step.ts), and a chat reopened mid-run reads it there
 * (session/interrupted-run.ts). It reads a tool's properties of these names
 * (registry.ts's `ITool`).
 */

/**
 * Whether a call of `tool` runs or watches the cell it names (its
 * `cellOf`), read from its properties (no tool is named here): one that runs
 * code on the cell it is approved with (`run_cell`), or one that waits for
 * a cell left running (`wait`). A finished call of it means that cell is
 * no longer running.
 */
export function runsNamedCell(tool: {
  waitsForCells?: boolean;
  approvedWithCell?: boolean;
  kind: unknown;
}): boolean {
  return (
    !!tool.waitsForCells || (!!tool.approvedWithCell && tool.kind === 'run')
  );
}
