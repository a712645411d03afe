/**
 * The tasks behind Generate notebook and Fix this cell, as the session runs
 * them: each workflow runs its turns through the session, and what it
 * reports (verification progress, a fix to review) goes to the transcript.
 * The workflows load when first used (a fix, a generation), not at start-up.
 */
import type { INotebookPort } from '../ports';
import type { ICellChange } from '../workflows/cell-changes';
import type { IFixResult } from '../workflows/fix-cell';
import type {
  IGenerateResult,
  IVerificationEvent
} from '../workflows/generate-notebook';
import type { IGenerateRequestOptions, IWorkflowHost, TaskWork } from './types';

/** How a generation that is not verified starts its last line (the CLI exits 2). */
export const NOT_VERIFIED = 'Built, not verified';

/** The task of generating a notebook from `request`, then verifying it. */
export function generateTask(
  request: string,
  options: IGenerateRequestOptions,
  host: IWorkflowHost
): TaskWork<IGenerateResult> {
  return async (turn, notebook, signal, setup) =>
    (await import('../workflows/generate-notebook')).generateNotebook({
      notebook,
      request,
      attachments: options.attachments,
      runTurn: (prompt, turnOptions) =>
        turn(prompt, { ...turnOptions, approvalMode: options.approvalMode }),
      runOptions: {
        signal,
        hardTimeoutMs: host.hardTimeoutMs()
      },
      onVerification: event => host.notice(verificationNotice(event)),
      // A model that writes code blocks writes one step's cell at a time.
      stepwise: setup.protocol === 'text',
      offers: setup.offers
    });
}

/** The transcript's line for a verification's progress. */
function verificationNotice(event: IVerificationEvent): string {
  if (event.type === 'start') {
    return 'Verifying: restarting the kernel and running every cell from the top…';
  }
  const { verification: v, willRepair, notVerified } = event;
  if (notVerified) {
    return `${NOT_VERIFIED}: ${notVerified}.`;
  }
  if (v.ok) {
    return `Verified: the kernel restarted and all ${v.total} code cells ran without error.`;
  }
  return (
    `Verification failed at code cell ${(v.failure?.index ?? v.ran) + 1} of ${v.total}` +
    (willRepair ? ': asking the agent to fix it.' : '.')
  );
}

/**
 * The task of fixing the code cell `cellId`; its changes (or a fix that
 * did not succeed) go to review.
 */
export function fixTask(
  cellId: string,
  maxAttempts: number | undefined,
  host: IWorkflowHost
): TaskWork<IFixResult> {
  return async (turn, notebook, signal, setup) => {
    const { DEFAULT_FIX_ATTEMPTS, FIX_ALWAYS_ASK, fixCell } =
      await import('../workflows/fix-cell');
    // One undo step for the whole fix, however many turns it takes.
    notebook.beginUndoGroup();
    let result: IFixResult;
    try {
      result = await fixCell({
        notebook,
        cellId,
        maxAttempts: maxAttempts ?? DEFAULT_FIX_ATTEMPTS,
        runTurn: (prompt, turnOptions) =>
          turn(prompt, { ...turnOptions, alwaysAsk: FIX_ALWAYS_ASK }, false),
        runOptions: {
          signal,
          hardTimeoutMs: host.hardTimeoutMs()
        },
        // A model that writes code blocks writes the fixed cell as one.
        rewrite: setup.protocol === 'text',
        offers: setup.offers
      });
    } finally {
      notebook.endUndoGroup();
    }
    if (result.changes.length || result.status !== 'fixed') {
      host.review(
        {
          cellId,
          status: result.status,
          attempts: result.attempts,
          turnsWithoutEdit: result.turnsWithoutEdit,
          gaveUp: result.gaveUp,
          changes: result.changes,
          names: result.names,
          problem: result.problem
        },
        notebook
      );
    }
    return result;
  };
}

/**
 * Restore every source a fix changed, byte for byte, and remove its added
 * cells, as one undo step; tells `notice` how it went. Resolves with the
 * ids it could not restore (the user changed them meanwhile).
 */
export async function revertReview(
  notebook: INotebookPort,
  changes: ReadonlyArray<ICellChange>,
  notice: (text: string) => void
): Promise<string[]> {
  const { revertChanges } = await import('../workflows/cell-changes');
  notebook.beginUndoGroup();
  try {
    const failed = await revertChanges(notebook, changes);
    notice(
      failed.length
        ? `Rejected, but ${failed.length} cell(s) could not be restored: ${failed.join(', ')}.`
        : 'Rejected: the cells are back as they were.'
    );
    return failed;
  } finally {
    notebook.endUndoGroup();
  }
}
