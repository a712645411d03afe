/**
 * What the tools of one run remember: which cell sources the agent has seen
 * (so an edit can refuse when the user changed the cell since), which cells
 * it created (the only ones it may delete), and the run's limits.
 */

/** Limits and permissions of a run. */
export interface IRunSettings {
  /** A run returns partial output after this long and lets the model decide. */
  softTimeoutMs: number;
  /** A run is interrupted after this long. */
  hardTimeoutMs: number;
  /** Whether the agent may delete cells it did not create in this run. */
  allowDeleteAnyCell: boolean;
}

/** Defaults: 30 s soft, 10 min hard, delete only the agent's own cells. */
export const DEFAULT_RUN_SETTINGS: IRunSettings = {
  softTimeoutMs: 30_000,
  hardTimeoutMs: 600_000,
  allowDeleteAnyCell: false
};

/** Per-run memory of the tools. */
export class RunState {
  /** Cell id → the source the agent last read or wrote. */
  readonly seen = new Map<string, string>();
  /** Cells the agent inserted in this run. */
  readonly created = new Set<string>();
  /** Cells whose run returned `running` and may still be going. */
  readonly running = new Set<string>();
  /**
   * Path → a file's text as write_file's approval step saw it (null: no
   * file), so the write is refused when it changed meanwhile.
   */
  readonly filesShown = new Map<string, string | null>();

  constructor(readonly settings: IRunSettings = DEFAULT_RUN_SETTINGS) {}
}
