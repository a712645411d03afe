/**
 * The agent's plan as a checklist (from its update_plan calls), so the
 * user can follow a long task such as generating a notebook.
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

function statusLabel(
  status: IPlanStep['status'],
  trans: TranslationBundle
): string {
  switch (status) {
    case 'pending':
      return trans.__('to do');
    case 'in-progress':
      return trans.__('in progress');
    case 'done':
      return trans.__('done');
  }
}

/** The plan checklist. */
export function PlanView(props: {
  plan: ReadonlyArray<IPlanStep>;
}): JSX.Element {
  const trans = useTrans();
  const done = props.plan.filter(step => step.status === 'done').length;
  return (
    <details className="jp-AgentSidebar-plan" open>
      <summary>
        {trans.__('Plan · %1/%2 done', done, props.plan.length)}
      </summary>
      <ol aria-label={trans.__('Plan')}>
        {props.plan.map((step, index) => (
          <li
            key={index}
            className={`jp-AgentSidebar-planStep jp-mod-${step.status}`}
            aria-label={trans.__(
              '%1: %2',
              step.title,
              statusLabel(step.status, trans)
            )}
          >
            <span aria-hidden="true" className="jp-AgentSidebar-planMark">
              {MARKS[step.status]}
            </span>{' '}
            {step.title}
          </li>
        ))}
      </ol>
    </details>
  );
}
