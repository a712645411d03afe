/**
 * The agent's plan as a checklist (from its update_plan calls), so the
 * user can follow a long task such as generating a notebook.
 *
 * While the run goes on the plan sticks to the top of the chat. Once it has
 * ended, the plan says how far the agent ticked it off and no longer claims
 * that a step is under way: small models often state a plan and never update
 * it, and "0/3 done" pinned above a finished answer read as work still to come.
 */
import type { TranslationBundle } from '@jupyterlab/translation';
import React from 'react';
import type { IPlanStep } from '../../agent/types';
import { useTrans } from '../common/trans';

const MARKS: Record<IPlanStep['status'], string> = {
  pending: '○',
  'in-progress': '◐',
  done: '✓'
};

/** A step the run ended without ticking off. */
const UNTICKED_MARK = '–';

function statusLabel(
  status: IPlanStep['status'],
  ended: boolean,
  trans: TranslationBundle
): string {
  if (ended && status !== 'done') {
    return trans.__('not marked done');
  }
  switch (status) {
    case 'pending':
      return trans.__('to do');
    case 'in-progress':
      return trans.__('in progress');
    case 'done':
      return trans.__('done');
  }
}

/** The plan checklist; `ended`: the run that stated it is over. */
export function PlanView(props: {
  plan: ReadonlyArray<IPlanStep>;
  ended?: boolean;
}): JSX.Element {
  const trans = useTrans();
  const ended = props.ended === true;
  const done = props.plan.filter(step => step.status === 'done').length;
  const total = props.plan.length;
  const summary =
    ended && done < total
      ? trans.__('Plan · %1/%2 marked done when the run ended', done, total)
      : trans.__('Plan · %1/%2 done', done, total);
  return (
    <details
      className={`jp-AgentSidebar-plan${ended ? ' jp-mod-ended' : ''}`}
      open
    >
      <summary>{summary}</summary>
      <ol aria-label={trans.__('Plan')}>
        {props.plan.map((step, index) => {
          const unticked = ended && step.status !== 'done';
          return (
            <li
              key={index}
              className={`jp-AgentSidebar-planStep jp-mod-${unticked ? 'unticked' : step.status}`}
              aria-label={trans.__(
                '%1: %2',
                step.title,
                statusLabel(step.status, ended, trans)
              )}
            >
              <span aria-hidden="true" className="jp-AgentSidebar-planMark">
                {unticked ? UNTICKED_MARK : MARKS[step.status]}
              </span>{' '}
              {step.title}
            </li>
          );
        })}
      </ol>
    </details>
  );
}
