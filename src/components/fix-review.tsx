/**
 * The review of a "Fix this cell" run: each changed cell as a line diff
 * (before/after), and Accept / Reject. Reject puts every source back.
 */
import { diffLines } from 'diff';
import React, { useState } from 'react';
import type { ICellChange } from '../agent/workflows/cell-changes';
import type { IFixReview } from '../agent/session';

/** Props of `FixReview`. */
export interface IFixReviewProps {
  review: IFixReview;
  onAccept: () => void;
  onReject: () => void;
  onShowCell: (cellId: string) => void;
}

const HEADLINES: Record<IFixReview['status'], string> = {
  fixed: 'The cell runs without error now.',
  'not-fixed': 'The agent could not fix the cell.',
  stopped: 'The fix was stopped.',
  failed: 'The fix did not finish.'
};

/** Diff and decision buttons for a fix. */
export function FixReview(props: IFixReviewProps): JSX.Element {
  const { review } = props;
  const [busy, setBusy] = useState(false);
  const attempts =
    review.attempts === 1 ? '1 attempt' : `${review.attempts} attempts`;
  return (
    <section
      className={`jp-AgentSidebar-review jp-mod-${review.status}`}
      aria-label="Review the fix"
    >
      <strong>
        {HEADLINES[review.status]} ({attempts})
      </strong>
      {review.problem && review.status !== 'fixed' && (
        <pre className="jp-AgentSidebar-reviewProblem">{review.problem}</pre>
      )}
      {review.changes.length === 0 ? (
        <p>No cell was changed.</p>
      ) : (
        review.changes.map(change => (
          <ChangeDiff
            key={change.cellId}
            change={change}
            onShowCell={props.onShowCell}
          />
        ))
      )}
      <div className="jp-AgentSidebar-reviewButtons">
        {review.changes.length > 0 && (
          <button
            className="jp-mod-styled jp-mod-accept"
            disabled={busy}
            onClick={props.onAccept}
          >
            Accept
          </button>
        )}
        {review.changes.length > 0 ? (
          <button
            className="jp-mod-styled jp-mod-reject"
            disabled={busy}
            onClick={() => {
              setBusy(true);
              props.onReject();
            }}
          >
            Reject
          </button>
        ) : (
          <button className="jp-mod-styled" onClick={props.onAccept}>
            Dismiss
          </button>
        )}
      </div>
    </section>
  );
}

const KIND_LABELS: Record<ICellChange['kind'], string> = {
  edited: 'Changed',
  inserted: 'Added',
  deleted: 'Deleted'
};

function ChangeDiff(props: {
  change: ICellChange;
  onShowCell: (cellId: string) => void;
}): JSX.Element {
  const { change } = props;
  const parts = diffLines(change.before ?? '', change.after ?? '');
  return (
    <figure className="jp-AgentSidebar-diff">
      <figcaption>
        {KIND_LABELS[change.kind]} {change.type} cell{' '}
        {change.kind !== 'deleted' ? (
          <button
            className="jp-AgentSidebar-link"
            onClick={() => props.onShowCell(change.cellId)}
          >
            {change.cellId.slice(0, 8)}
          </button>
        ) : (
          change.cellId.slice(0, 8)
        )}
      </figcaption>
      <pre aria-label={`Diff of cell ${change.cellId}`}>
        {parts.map((part, index) => (
          <span
            key={index}
            className={
              part.added
                ? 'jp-AgentSidebar-diffAdded'
                : part.removed
                  ? 'jp-AgentSidebar-diffRemoved'
                  : 'jp-AgentSidebar-diffSame'
            }
          >
            {prefixLines(
              part.value,
              part.added ? '+ ' : part.removed ? '- ' : '  '
            )}
          </span>
        ))}
      </pre>
    </figure>
  );
}

/** Mark every line of a diff part, as unified diffs do. */
function prefixLines(text: string, prefix: string): string {
  const body = text.endsWith('\n') ? text.slice(0, -1) : text;
  return `${body
    .split('\n')
    .map(line => prefix + line)
    .join('\n')}\n`;
}
