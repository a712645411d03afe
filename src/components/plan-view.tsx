/**
 * The agent's plan as a checklist (from its update_plan calls), so the
 * user can follow a long task such as generating a notebook.
 */
import React from 'react';
import type { IPlanStep } from '../agent/types';

const MARKS: Record<IPlanStep['status'], string> = {
  pending: '○',
  'in-progress': '◐',
  done: '✓'
};

const LABELS: Record<IPlanStep['status'], string> = {
  pending: 'to do',
  'in-progress': 'in progress',
  done: 'done'
};

/** The plan checklist. */
export function PlanView(props: {
  plan: ReadonlyArray<IPlanStep>;
}): JSX.Element {
  const done = props.plan.filter(step => step.status === 'done').length;
  return (
    <details className="jp-AgentSidebar-plan" open>
      <summary>
        Plan · {done}/{props.plan.length} done
      </summary>
      <ol aria-label="Plan">
        {props.plan.map((step, index) => (
          <li
            key={index}
            className={`jp-AgentSidebar-planStep jp-mod-${step.status}`}
            aria-label={`${step.title}: ${LABELS[step.status]}`}
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
