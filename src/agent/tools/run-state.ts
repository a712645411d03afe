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

/**
 * Cell id → the source the agent last read or wrote, and where in the
 * conversation it did: when older steps are summarised away
 * (context/summary.ts), what they showed is no longer in view, so those
 * cells count as unseen again and must be read before an edit.
 */
export class SeenSources extends Map<string, string> {
  /** The history index of the step now running (the loop sets it). */
  position = 0;

  override set(id: string, source: string): this {
    this._at.set(id, this.position);
    return super.set(id, source);
  }

  override delete(id: string): boolean {
    this._at.delete(id);
    return super.delete(id);
  }

  override clear(): void {
    this._at.clear();
    super.clear();
  }

  /**
   * Forget the cells last seen at a history index below `index`, except at
   * the `kept` indices (messages still shown verbatim); returns their ids.
   */
  forgetBefore(index: number, kept: readonly number[] = []): string[] {
    const gone: string[] = [];
    for (const id of [...this.keys()]) {
      const at = this._at.get(id) ?? 0;
      if (at < index && !kept.includes(at)) {
        gone.push(id);
        this.delete(id);
      }
    }
    return gone;
  }

  private readonly _at = new Map<string, number>();
}

/** Whether a run offers the tool named `tool` (what the model reads names only those). */
export type OffersTool = (tool: string) => boolean;

/** Per-run memory of the tools. */
export class RunState {
  /** Cell id → the source the agent last read or wrote. */
  readonly seen = new SeenSources();
  /** Cells the agent inserted in this run. */
  readonly created = new Set<string>();
  /** Cells whose run returned `running` and may still be going. */
  readonly running = new Set<string>();
  /**
   * Path → a file's text as write_file's approval step saw it (null: no
   * file), so the write is refused when it changed meanwhile.
   */
  readonly filesShown = new Map<string, string | null>();

  /** `offers`: the run's tools (default: every tool, as a run of the standard profile). */
  constructor(
    readonly settings: IRunSettings = DEFAULT_RUN_SETTINGS,
    readonly offers: OffersTool = () => true
  ) {}
}
