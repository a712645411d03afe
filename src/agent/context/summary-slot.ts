/**
 * A conversation's summary as it is kept and saved (./summary.ts makes and
 * uses it): its shape, where it lives, and whether a saved one still fits
 * its history. No imports, so a chat is reopened without the summary's
 * policy or prompts.
 */

/** A summary standing in for the start of a conversation (saved with the chat). */
export interface IContextSummary {
  /** What the model wrote. */
  text: string;
  /** `history[1 .. covers)` are replaced by the summary (`history[0]` is the system prompt). */
  covers: number;
  /**
   * Indices below `covers` kept verbatim after the summary: the request that
   * was being worked on when it was made (the user's words are never summarised away).
   */
  kept: number[];
}

/** Where a conversation's summary lives (the session store's, or a run's own). */
export interface ISummarySlot {
  summary: IContextSummary | null;
}

/** Whether `summary` can stand in front of a history of `length` messages. */
export function isUsableSummary(
  summary: IContextSummary | null | undefined,
  length: number
): summary is IContextSummary {
  return (
    !!summary &&
    typeof summary.text === 'string' &&
    Number.isInteger(summary.covers) &&
    summary.covers >= 1 &&
    summary.covers <= length &&
    Array.isArray(summary.kept) &&
    summary.kept.every(i => Number.isInteger(i) && i >= 1 && i < summary.covers)
  );
}
