/**
 * The review of a "Fix this cell" run: each changed cell as a line diff
 * (before/after), and Accept / Reject. Reject puts every source back.
 */
import type { TranslationBundle } from '@jupyterlab/translation';
import { diffLines } from 'diff';
import React, { useEffect, useRef, useState } from 'react';
import type { ICellChange } from '../../agent/workflows/cell-changes';
import type { IFixReview } from '../../agent/session';
import { ShowCellButton } from './show-cell-button';
import type { ShowCellResult } from '../config/sidebar-config';
import { useTrans } from '../common/trans';

/** Props of `FixReview`. */
export interface IFixReviewProps {
  review: IFixReview;
  onAccept: () => void;
  onReject: () => void;
  onShowCell: (cellId: string) => ShowCellResult | void;
}

function headline(
  status: IFixReview['status'],
  trans: TranslationBundle
): string {
  switch (status) {
    case 'fixed':
      return trans.__('The cell runs without error now.');
    case 'not-fixed':
      return trans.__('The agent could not fix the cell.');
    case 'stopped':
      return trans.__('The fix was stopped.');
    case 'failed':
      return trans.__('The fix did not finish.');
  }
}

/** Diff and decision buttons for a fix. */
export function FixReview(props: IFixReviewProps): JSX.Element {
  const { review } = props;
  const trans = useTrans();
  const [busy, setBusy] = useState(false);
  const node = useRef<HTMLElement>(null);
  // The fix's result is where the chat ends: bring it into view (it may
  // appear after the transcript last scrolled, its code loading late).
  useEffect(() => {
    node.current?.scrollIntoView?.({ block: 'start' });
  }, []);
  // Only turns that changed a cell are attempts (none: nothing to count).
  const attempts = review.attempts
    ? ` (${trans._n('%1 attempt', '%1 attempts', review.attempts)})`
    : '';
  return (
    <section
      ref={node}
      className={`jp-AgentSidebar-review jp-mod-${review.status}`}
      aria-label={trans.__('Review the fix')}
    >
      <strong>
        {headline(review.status, trans)}
        {attempts}
      </strong>
      {review.gaveUp === 'no-edit' && (
        <p className="jp-AgentSidebar-reviewWhy">
          {review.attempts
            ? trans._n(
                'After its last change the agent answered %1 time without changing the cell again, so the fix stopped there.',
                'After its last change the agent answered %1 times without changing the cell again, so the fix stopped there.',
                review.turnsWithoutEdit ?? 0
              )
            : trans._n(
                'The agent answered %1 time without changing a cell, so the fix stopped there.',
                'The agent answered %1 times without changing a cell, so the fix stopped there.',
                review.turnsWithoutEdit ?? 0
              )}
        </p>
      )}
      {review.problem && review.status !== 'fixed' && (
        <pre className="jp-AgentSidebar-reviewProblem">{review.problem}</pre>
      )}
      {review.changes.length === 0 ? (
        <p>{trans.__('No cell was changed.')}</p>
      ) : (
        review.changes.map(change => (
          <ChangeDiff
            key={change.cellId}
            change={change}
            name={review.names?.[change.cellId]}
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
            {trans.__('Accept')}
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
            {trans.__('Reject')}
          </button>
        ) : (
          <button className="jp-mod-styled" onClick={props.onAccept}>
            {trans.__('Dismiss')}
          </button>
        )}
      </div>
    </section>
  );
}

/** "Changed code cell", "Added markdown cell"… */
function changeLabel(change: ICellChange, trans: TranslationBundle): string {
  switch (change.kind) {
    case 'edited':
      return trans.__('Changed %1 cell', change.type);
    case 'inserted':
      return trans.__('Added %1 cell', change.type);
    case 'deleted':
      return trans.__('Deleted %1 cell', change.type);
  }
}

function ChangeDiff(props: {
  change: ICellChange;
  /** The cell as the user sees it ("[4]", "2"); its id's start when unknown. */
  name?: string;
  onShowCell: (cellId: string) => ShowCellResult | void;
}): JSX.Element {
  const { change } = props;
  const trans = useTrans();
  const parts = diffLines(change.before ?? '', change.after ?? '');
  const name = props.name ?? change.cellId.slice(0, 8);
  return (
    <figure className="jp-AgentSidebar-diff">
      <figcaption>
        {changeLabel(change, trans)}{' '}
        {change.kind !== 'deleted' ? (
          <ShowCellButton
            cellId={change.cellId}
            label={name}
            onShowCell={props.onShowCell}
          />
        ) : (
          name
        )}
      </figcaption>
      <pre aria-label={trans.__('Diff of cell %1', name)}>
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
