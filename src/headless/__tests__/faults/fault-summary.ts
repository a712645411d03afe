/**
 * The fault suite's figures: each category counts the cases it tried and
 * passed, the user's cells it lost and the leaks it found, and prints one
 * line when its file ends, e.g.
 *
 *   [fault-summary] model faults (direct): 17 cases tried, 17 passed, cells lost 0 (must be 0), leaks found 0 (must be 0)
 *
 * A case counts as passed when its body threw nothing. Cells lost and leaks
 * are counted before the assertions that would fail on them, so a failing
 * run still reports them.
 */

/** What one case found, filled in by its body. */
export interface ICaseFindings {
  /** The user's cells missing or changed afterwards. */
  cellsLost: number;
  /** Secrets seen where they must not be, or requests/kernels left behind. */
  leaks: number;
}

/** The figures of one category. */
export class FaultSummary {
  /**
   * `context`: a line put first in a failed case's message, e.g. the
   * server's last kernel events (CI's summary keeps only the first lines
   * of a failure, and the server's log is gone with its machine).
   */
  constructor(
    readonly category: string,
    private readonly _context?: () => string
  ) {}

  /** Run one case and count it; rethrows its failure. */
  async run(
    name: string,
    body: (findings: ICaseFindings) => Promise<void>
  ): Promise<void> {
    const findings: ICaseFindings = { cellsLost: 0, leaks: 0 };
    this._tried += 1;
    try {
      await body(findings);
      this._passed += 1;
    } catch (error) {
      this._failed.push(name);
      const context = this._context?.();
      if (context && error instanceof Error) {
        error.message = `${context}\n${error.message}`;
      }
      throw error;
    } finally {
      this._cellsLost += findings.cellsLost;
      this._leaks += findings.leaks;
    }
  }

  /** The summary line. */
  line(): string {
    const failed = this._failed.length
      ? `; failed: ${this._failed.join(', ')}`
      : '';
    return (
      `[fault-summary] ${this.category}: ${this._tried} cases tried, ` +
      `${this._passed} passed, cells lost ${this._cellsLost} (must be 0), ` +
      `leaks found ${this._leaks} (must be 0)${failed}`
    );
  }

  /** Print the line on stdout (in afterAll). */
  print(): void {
    process.stdout.write(`\n${this.line()}\n`);
  }

  private _tried = 0;
  private _passed = 0;
  private _cellsLost = 0;
  private _leaks = 0;
  private readonly _failed: string[] = [];
}
